// The expert hand-written method, the best an engineer writes in an
// afternoon: each peer's boxes packed in the sender's memory order (runs of
// memcpy), one MPI_Alltoallv of whole elements, and a cache-blocked
// transposing unpack into the receiver's layout; the part a rank keeps is
// copied straight from its send buffer into its receive buffer, never
// through MPI.
#include "box_copy.hpp"
#include "elem_types.hpp"
#include "method.hpp"
#include "pack_baseline.hpp"

#include <climits>
#include <numeric>

namespace dri::bench {

namespace {

// Strides of a box packed contiguously in the order of `layout_strides`
// (the largest stride slowest), as the sender lays the box out on the wire.
std::vector<Index> packed_like(const std::vector<Index>& count,
                               const std::vector<Index>& layout_strides) {
    std::vector<std::size_t> dims(count.size());
    std::iota(dims.begin(), dims.end(), 0);
    std::stable_sort(dims.begin(), dims.end(), [&](std::size_t x, std::size_t y) {
        return layout_strides[x] > layout_strides[y];
    });
    std::vector<Index> out(count.size());
    Index s = 1;
    for (std::size_t k = dims.size(); k-- > 0;) {
        out[dims[k]] = s;
        s *= count[dims[k]];
    }
    return out;
}

struct Part {
    Index src = 0, dst = 0; // element offsets
    BoxCopy copy;
};

struct Expert {
    std::vector<Part> pack, unpack, self;
    std::vector<int> scounts, rcounts, sdispls, rdispls; // in elements
    std::vector<std::byte> swire, rwire;
    MPI_Datatype etype = MPI_DATATYPE_NULL;
    MPI_Comm comm;
    Index elem;
    bool fits = true;

    explicit Expert(const Problem& pb) : comm(pb.comm), elem(pb.elem()) {
        const std::vector<Index> sstr =
            pb.me_send >= 0 ? pb.send_local(pb.me_send).strides : std::vector<Index>{};
        const std::vector<Index> rstr =
            pb.me_recv >= 0 ? pb.recv_local(pb.me_recv).strides : std::vector<Index>{};
        Index soff = 0, roff = 0;
        for (int p = 0; p < pb.size; ++p) {
            const Index s0 = soff, r0 = roff;
            for (const Box& b : pb.sends_to(p)) {
                const Index src = pb.send_offset(pb.me_send, b) / elem;
                if (p == pb.rank) {
                    self.push_back(
                        {src, pb.recv_offset(pb.me_recv, b) / elem, {b.count, sstr, rstr}});
                    continue;
                }
                pack.push_back({src, soff, {b.count, sstr, packed_like(b.count, sstr)}});
                soff += b.elements();
            }
            if (p != pb.rank) {
                const int s = pb.send_index_of[static_cast<std::size_t>(p)];
                for (const Box& b : pb.recvs_from(p)) {
                    const std::vector<Index> wire = packed_like(b.count, pb.send_local(s).strides);
                    unpack.push_back(
                        {roff, pb.recv_offset(pb.me_recv, b) / elem, {b.count, wire, rstr}});
                    roff += b.elements();
                }
            }
            fits &= soff <= INT_MAX && roff <= INT_MAX;
            scounts.push_back(static_cast<int>(soff - s0));
            rcounts.push_back(static_cast<int>(roff - r0));
            sdispls.push_back(static_cast<int>(s0));
            rdispls.push_back(static_cast<int>(r0));
        }
        if (!fits) return;
        swire.resize(static_cast<std::size_t>(soff * elem));
        rwire.resize(static_cast<std::size_t>(roff * elem));
        MPI_Type_contiguous(static_cast<int>(elem), MPI_BYTE, &etype);
        MPI_Type_commit(&etype);
    }
    Expert(const Expert&) = delete;
    Expert& operator=(const Expert&) = delete;
    ~Expert() {
        if (etype != MPI_DATATYPE_NULL) MPI_Type_free(&etype);
    }

    template <class T>
    void typed(const std::byte* s, std::byte* r) {
        const T* src = reinterpret_cast<const T*>(s);
        T* dst = reinterpret_cast<T*>(r);
        T* sw = reinterpret_cast<T*>(swire.data());
        const T* rw = reinterpret_cast<const T*>(rwire.data());
        for (const Part& p : pack)
            copy_box(src + p.src, sw + p.dst, p.copy);
        MPI_Alltoallv(swire.data(), scounts.data(), sdispls.data(), etype, rwire.data(),
                      rcounts.data(), rdispls.data(), etype, comm);
        for (const Part& p : self)
            copy_box(src + p.src, dst + p.dst, p.copy);
        for (const Part& p : unpack)
            copy_box(rw + p.src, dst + p.dst, p.copy);
    }
    void run(const std::byte* s, std::byte* r) {
        with_elem_type(elem, [&](auto t) { typed<decltype(t)>(s, r); });
    }
};

} // namespace

void add_expert_method(Catalog& cat, const Problem& pb, Rings& rings) {
    add_pack_baseline<Expert>(cat, pb, rings, "expert_pack_alltoallv",
                              "a rank's elements exceed MPI's int counts");
}

} // namespace dri::bench
