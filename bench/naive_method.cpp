// The naive hand-written method, what a user writes first: loops packing
// each peer's boxes element by element (innermost global dimension
// innermost, whatever the layout), MPI_Alltoallv, loops unpacking. Kept as
// the reference of a first attempt; "expert" is the honest hand-written one.
#include "elem_types.hpp"
#include "method.hpp"
#include "pack_baseline.hpp"

#include <climits>

namespace dri::bench {

namespace {

struct Piece {
    std::vector<Index> outer_offsets; // byte offset of each innermost line
    Index inner_count = 0, inner_stride = 0;
};

std::vector<Piece> pieces(const core::Distribution& d, const core::LocalLayout& ll, int idx,
                          const std::vector<Box>& bs, bool stored) {
    const std::vector<int> c = d.coords(idx);
    const int nd = d.ndims();
    const auto last = static_cast<std::size_t>(nd - 1);
    std::vector<Piece> out;
    for (const Box& b : bs) {
        Piece p;
        p.inner_count = b.count[last];
        p.inner_stride = ll.strides[last] * ll.elem_size;
        std::vector<Index> g(b.first);
        for (;;) {
            Index off = 0;
            for (int dim = 0; dim < nd; ++dim) {
                const auto u = static_cast<std::size_t>(dim);
                off += Problem::local_of(d, dim, c[u], g[u], stored) * ll.strides[u] * ll.elem_size;
            }
            p.outer_offsets.push_back(off);
            int dim = nd - 1;
            while (dim-- > 0) {
                const auto u = static_cast<std::size_t>(dim);
                if (++g[u] < b.first[u] + b.count[u]) break;
                g[u] = b.first[u];
            }
            if (dim < 0) break;
        }
        out.push_back(std::move(p));
    }
    return out;
}

Index piece_bytes(const std::vector<Piece>& ps, Index elem) {
    Index n = 0;
    for (const Piece& pc : ps)
        n += static_cast<Index>(pc.outer_offsets.size()) * pc.inner_count * elem;
    return n;
}

struct Naive {
    std::vector<std::vector<Piece>> spieces, rpieces; // per peer
    std::vector<int> scounts, rcounts, sdispls, rdispls;
    std::vector<std::byte> sbuf, rbuf;
    MPI_Comm comm;
    Index elem;
    bool fits = true; // byte counts fit MPI's int

    explicit Naive(const Problem& pb) : comm(pb.comm), elem(pb.elem()) {
        Index soff = 0, roff = 0;
        for (int p = 0; p < pb.size; ++p) {
            spieces.push_back(pb.me_send < 0 ? std::vector<Piece>{}
                                             : pieces(*pb.sd, pb.send_local(pb.me_send), pb.me_send,
                                                      pb.sends_to(p), false));
            rpieces.push_back(pb.me_recv < 0 ? std::vector<Piece>{}
                                             : pieces(*pb.rd, pb.recv_local(pb.me_recv), pb.me_recv,
                                                      pb.recvs_from(p), true));
            const Index sb = piece_bytes(spieces.back(), elem),
                        rb = piece_bytes(rpieces.back(), elem);
            fits &= soff + sb <= INT_MAX && roff + rb <= INT_MAX;
            scounts.push_back(static_cast<int>(sb));
            rcounts.push_back(static_cast<int>(rb));
            sdispls.push_back(static_cast<int>(soff));
            rdispls.push_back(static_cast<int>(roff));
            soff += sb;
            roff += rb;
        }
        if (!fits) return;
        sbuf.resize(static_cast<std::size_t>(soff));
        rbuf.resize(static_cast<std::size_t>(roff));
    }

    template <class T>
    void typed(const std::byte* s, std::byte* r) {
        T* out = reinterpret_cast<T*>(sbuf.data());
        for (const auto& peer : spieces)
            for (const Piece& pc : peer) {
                const Index st = pc.inner_stride / static_cast<Index>(sizeof(T));
                for (Index off : pc.outer_offsets) {
                    const T* in = reinterpret_cast<const T*>(s + off);
                    for (Index i = 0; i < pc.inner_count; ++i)
                        *out++ = in[i * st];
                }
            }
        MPI_Alltoallv(sbuf.data(), scounts.data(), sdispls.data(), MPI_BYTE, rbuf.data(),
                      rcounts.data(), rdispls.data(), MPI_BYTE, comm);
        const T* in = reinterpret_cast<const T*>(rbuf.data());
        for (const auto& peer : rpieces)
            for (const Piece& pc : peer) {
                const Index st = pc.inner_stride / static_cast<Index>(sizeof(T));
                for (Index off : pc.outer_offsets) {
                    T* o = reinterpret_cast<T*>(r + off);
                    for (Index i = 0; i < pc.inner_count; ++i)
                        o[i * st] = *in++;
                }
            }
    }
    void run(const std::byte* s, std::byte* r) {
        with_elem_type(elem, [&](auto t) { typed<decltype(t)>(s, r); });
    }
};

} // namespace

void add_naive_method(Catalog& cat, const Problem& pb, Rings& rings) {
    add_pack_baseline<Naive>(cat, pb, rings, "naive_pack_alltoallv",
                             "a rank's packed bytes exceed MPI's int counts (2 GiB)");
}

} // namespace dri::bench
