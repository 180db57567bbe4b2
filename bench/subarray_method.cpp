// The textbook method: one MPI derived datatype per peer and side (a
// subarray where the side is row-major, nested hvectors where it is not),
// one MPI_Alltoallw.
#include "method.hpp"
#include "probe.hpp"

#include <memory>

namespace dri::bench {

namespace {

// Both sides traverse each box in global row-major order, so the elements
// match whatever the layouts.
MPI_Datatype box_type(const core::Distribution& d, const core::LocalLayout& ll, int idx,
                      const Box& b, bool stored, MPI_Datatype etype, MPI_Aint& disp) {
    const std::vector<int> c = d.coords(idx);
    // Row-major, padded or not: a subarray of the allocated extents describes it.
    bool row_major = ll.strides.back() == 1;
    for (std::size_t k = 1; k < ll.strides.size(); ++k)
        row_major &= ll.strides[k - 1] % ll.strides[k] == 0 &&
                     ll.strides[k - 1] >= ll.strides[k] * ll.extents[k];
    MPI_Datatype t = etype;
    if (row_major) {
        std::vector<int> sizes, subs, starts;
        for (int dim = 0; dim < d.ndims(); ++dim) {
            const auto u = static_cast<std::size_t>(dim);
            // The allocated extent along dim (padding included).
            const Index full = u == 0 ? ll.extents[0] : ll.strides[u - 1] / ll.strides[u];
            sizes.push_back(static_cast<int>(full));
            subs.push_back(static_cast<int>(b.count[u]));
            starts.push_back(static_cast<int>(Problem::local_of(d, dim, c[u], b.first[u], stored)));
        }
        MPI_Type_create_subarray(static_cast<int>(sizes.size()), sizes.data(), subs.data(),
                                 starts.data(), MPI_ORDER_C, etype, &t);
        disp = 0;
        return t;
    }
    disp = 0;
    const MPI_Aint elem = ll.elem_size;
    for (int dim = d.ndims(); dim-- > 0;) {
        const auto u = static_cast<std::size_t>(dim);
        MPI_Datatype next;
        MPI_Type_create_hvector(static_cast<int>(b.count[u]), 1, ll.strides[u] * elem, t, &next);
        if (t != etype) MPI_Type_free(&t);
        t = next;
        disp += Problem::local_of(d, dim, c[u], b.first[u], stored) * ll.strides[u] * elem;
    }
    return t;
}

// One struct type of every box of a peer, or MPI_BYTE (count 0) when none.
MPI_Datatype peer_type(const core::Distribution& d, const core::LocalLayout& ll, int idx,
                       const std::vector<Box>& bs, bool stored, MPI_Datatype etype) {
    if (bs.empty()) return MPI_BYTE;
    std::vector<MPI_Datatype> parts;
    std::vector<MPI_Aint> disps;
    for (const Box& b : bs) {
        MPI_Aint disp = 0;
        parts.push_back(box_type(d, ll, idx, b, stored, etype, disp));
        disps.push_back(disp);
    }
    MPI_Datatype all;
    std::vector<int> lens(parts.size(), 1);
    MPI_Type_create_struct(static_cast<int>(parts.size()), lens.data(), disps.data(), parts.data(),
                           &all);
    MPI_Type_commit(&all);
    for (MPI_Datatype& t : parts)
        MPI_Type_free(&t);
    return all;
}

struct Subarray {
    std::vector<MPI_Datatype> stypes, rtypes;
    std::vector<int> scounts, rcounts, displs;
    MPI_Comm comm;

    explicit Subarray(const Problem& pb) : comm(pb.comm) {
        MPI_Datatype etype;
        MPI_Type_contiguous(static_cast<int>(pb.elem()), MPI_BYTE, &etype);
        for (int p = 0; p < pb.size; ++p) {
            const auto sb = pb.sends_to(p), rb = pb.recvs_from(p);
            stypes.push_back(sb.empty() ? MPI_BYTE
                                        : peer_type(*pb.sd, pb.send_local(pb.me_send), pb.me_send,
                                                    sb, false, etype));
            rtypes.push_back(rb.empty() ? MPI_BYTE
                                        : peer_type(*pb.rd, pb.recv_local(pb.me_recv), pb.me_recv,
                                                    rb, true, etype));
            scounts.push_back(sb.empty() ? 0 : 1);
            rcounts.push_back(rb.empty() ? 0 : 1);
            displs.push_back(0);
        }
        MPI_Type_free(&etype);
    }
    Subarray(const Subarray&) = delete;
    Subarray& operator=(const Subarray&) = delete;
    ~Subarray() {
        for (auto* v : {&stypes, &rtypes})
            for (MPI_Datatype& t : *v)
                if (t != MPI_BYTE) MPI_Type_free(&t);
    }
    void run(const std::byte* s, std::byte* r) {
        MPI_Alltoallw(s, scounts.data(), displs.data(), stypes.data(), r, rcounts.data(),
                      displs.data(), rtypes.data(), comm);
    }
};

} // namespace

void add_subarray_method(Catalog& cat, const Problem& pb, Rings& rings) {
    const std::string name = "mpi_alltoallw_subarray";
    if (!cat.wants(name)) return;
    if (const std::string why = pb.baseline_limit(); !why.empty()) return cat.skip(name, why);
    Probe probe;
    auto m = std::make_shared<Subarray>(pb);
    Method out{name, Kind::baseline, nullptr, true, "", 0, -1, -1};
    out.run = ring_runner(m, rings);
    cat.add(std::move(out), probe);
}

} // namespace dri::bench
