// --scenario ptrans: HPC Challenge's PTRANS, C := A' + C, for A and C
// n x n double, block-cyclic with nb x nb blocks on a P x Q process grid
// numbered as HPCC numbers it (Cblacs_gridinit "Row-major": process (p, q)
// is rank p*Q + q), each block stored column-major with LLD = max(1, local
// rows). The send rings hold A's blocks, the receive rings C's (read and
// written). The method times one DRI transfer of A into C through the C
// binding, adding what arrives into C (DRI_Transfer_set_combine with
// DRI_COMBINE_SUM), as examples/ptrans does it, and is checked against an oracle of
// its own built from ScaLAPACK's index arithmetic (numroc), not from dri:
// every element of C equal to C_old + A' exactly.
#include "core/error.hpp"
#include "method.hpp"
#include "options.hpp"
#include "probe.hpp"

#include <dri/dri.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace dri::bench {

namespace {

// A(i, j) and C_old(i, j): a hash of the indices in [-0.5, 0.5).
double matrix_value(std::uint64_t seed, Index i, Index j) {
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull +
                      static_cast<std::uint64_t>(i) * 0xBF58476D1CE4E5B9ull +
                      static_cast<std::uint64_t>(j) * 0x94D049BB133111EBull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) / 9007199254740992.0 - 0.5;
}

constexpr std::uint64_t seed_a = 100, seed_c = 200; // HPCC's iaseed and icseed

// ScaLAPACK's numroc and the local-to-global map of a block-cyclic dimension.
Index numroc(Index n, Index nb, int iproc, int nprocs) {
    const Index blocks = n / nb, extra = blocks % nprocs;
    Index count = (blocks / nprocs) * nb;
    if (iproc < extra) count += nb;
    if (iproc == extra) count += n % nb;
    return count;
}
Index global_of(Index l, Index nb, int iproc, int nprocs) {
    return (l / nb) * nb * nprocs + static_cast<Index>(iproc) * nb + l % nb;
}

// This rank's place on the BLACS grid, its blocks and their values.
struct PtransBlocks {
    const Problem& pb;
    Rings& rings;
    int P = 1, Q = 1, p = 0, q = 0;
    Index n = 0, nb = 0, mp = 0, nq = 0, lld = 1;

    PtransBlocks(const Problem& pbm, Rings& r, int grid_p, int grid_q, Index block)
        : pb(pbm), rings(r), P(grid_p), Q(grid_q), nb(block) {
        // Sender index = rank (row-major), receivers as ptrans_recv_ranks.
        if (pb.size != P * Q || pb.me_send != pb.rank || pb.recv_ranks != ptrans_recv_ranks(P, Q))
            throw std::logic_error("dri-bench: ptrans: every rank on both sides expected");
        n = pb.shape.extent(0);
        p = pb.rank / Q;
        q = pb.rank % Q;
        mp = numroc(n, nb, p, P);
        nq = numroc(n, nb, q, Q);
        lld = mp > 1 ? mp : 1;
        const auto bytes = static_cast<Index>(sizeof(double)) * mp * nq;
        if (pb.send_bytes != bytes || pb.recv_bytes != bytes)
            throw std::logic_error("dri-bench: ptrans: dri's blocks differ from BLACS's");
    }

    double* a(int k) const {
        return reinterpret_cast<double*>(rings.send[static_cast<std::size_t>(k)].data());
    }
    double* c(int k) const {
        return reinterpret_cast<double*>(rings.recv[static_cast<std::size_t>(k)].data());
    }
    // Local (il, jl) of this rank's block as global (i, j).
    Index row(Index il) const { return global_of(il, nb, p, P); }
    Index col(Index jl) const { return global_of(jl, nb, q, Q); }

    void fill(double* local, std::uint64_t seed) const {
        for (Index jl = 0; jl < nq; ++jl)
            for (Index il = 0; il < mp; ++il)
                local[il + jl * lld] = matrix_value(seed, row(il), col(jl));
    }
    // Before the checked call: A in send buffer k, C_old in receive buffer k.
    void prepare(int k) const {
        fill(a(k), seed_a);
        fill(c(k), seed_c);
    }
    // C(i, j) == C_old(i, j) + A(j, i), added in that order as the transfer does.
    std::string verify(int k) const {
        const double* got = c(k);
        for (Index jl = 0; jl < nq; ++jl)
            for (Index il = 0; il < mp; ++il) {
                const Index i = row(il), j = col(jl);
                const double want = matrix_value(seed_c, i, j) + matrix_value(seed_a, j, i);
                if (got[il + jl * lld] != want)
                    return "C(" + std::to_string(i) + ", " + std::to_string(j) + ") is " +
                           std::to_string(got[il + jl * lld]) + ", expected " +
                           std::to_string(want);
            }
        return "";
    }
};

// The C binding's objects of the one transfer, destroyed with the method.
struct PtransTransfer {
    DRI_Globaldata gdo = nullptr;
    DRI_Partition a_part = nullptr, c_part = nullptr;
    DRI_Group a_group = nullptr, c_group = nullptr;
    DRI_Distribution a_dist = nullptr, c_dist = nullptr;
    DRI_Layout col_major = nullptr, row_major = nullptr;
    DRI_Transfer xfer = nullptr;
    double empty = 0; // the buffer of a process without a block
    std::vector<void*> sbufs, rbufs;
    std::vector<DRI_Index> sizes;
    std::string error;

    bool ok(int rc, const char* what) {
        if (rc == DRI_SUCCESS) return true;
        if (error.empty())
            error = std::string(what) + ": " + DRI_Error_string(rc) + " (" +
                    DRI_Last_error_message() + ")";
        return false;
    }

    static DRI_Dimpart cyclic_over(Index nb, int nprocs) {
        DRI_Dimpart d = DRI_Dim_cyclic(nb);
        d.nprocs = nprocs;
        d.min_block = 0; // n < nb * nprocs leaves processes without a block
        return d;
    }

    // A: cyclic(nb) over P x cyclic(nb) over Q, column-major blocks, the
    // world in row-major grid order (HPCC's). C, in A's indices: cyclic(nb)
    // over Q x cyclic(nb) over P, rows contiguous; C's block (p, q) is
    // coordinate (q, p) of the Q x P grid, held by rank p*Q + q: that grid is
    // numbered column-major (here by a group listing the ranks in that order).
    PtransTransfer(const PtransBlocks& b) {
        const DRI_Index ext[2] = {b.n, b.n};
        const DRI_Dimpart ap[2] = {cyclic_over(b.nb, b.P), cyclic_over(b.nb, b.Q)};
        const DRI_Dimpart cp[2] = {cyclic_over(b.nb, b.Q), cyclic_over(b.nb, b.P)};
        const int o10[2] = {1, 0}, o01[2] = {0, 1};
        std::vector<int> c_ranks(static_cast<std::size_t>(b.P * b.Q));
        for (int g = 0; g < b.P * b.Q; ++g)
            c_ranks[static_cast<std::size_t>(g)] = (g % b.P) * b.Q + g / b.P;
        const DRI_Index bytes = static_cast<DRI_Index>(sizeof(double)) * b.mp * b.nq;
        for (int k = 0; k < b.rings.count(); ++k) {
            sbufs.push_back(b.a(k) ? static_cast<void*>(b.a(k)) : &empty);
            rbufs.push_back(b.c(k) ? static_cast<void*>(b.c(k)) : &empty);
            sizes.push_back(bytes);
        }
        const int n = b.rings.count();
        ok(DRI_Globaldata_create(2, ext, DRI_DOUBLE, &gdo), "DRI_Globaldata_create") &&
            ok(DRI_Partition_create(2, ap, &a_part), "A's partition") &&
            ok(DRI_Partition_create(2, cp, &c_part), "C's partition") &&
            ok(DRI_Group_create(b.pb.comm, 0, nullptr, &a_group), "A's group") &&
            ok(DRI_Group_create(b.pb.comm, b.P * b.Q, c_ranks.data(), &c_group), "C's group") &&
            ok(DRI_Distribution_create(gdo, a_part, a_group, &a_dist), "A's distribution") &&
            ok(DRI_Distribution_create(gdo, c_part, c_group, &c_dist), "C's distribution") &&
            ok(DRI_Layout_create(2, o10, nullptr, &col_major), "layout") &&
            ok(DRI_Layout_create(2, o01, nullptr, &row_major), "layout") &&
            ok(DRI_Transfer_create("dri-bench.ptrans", &xfer), "DRI_Transfer_create") &&
            ok(DRI_Transfer_send(xfer, a_dist, col_major, n, sbufs.data(), sizes.data()), "send") &&
            ok(DRI_Transfer_recv(xfer, c_dist, row_major, n, rbufs.data(), sizes.data()), "recv") &&
            ok(DRI_Transfer_set_combine(xfer, DRI_COMBINE_SUM), "DRI_Transfer_set_combine");
    }
    // Collective: after the declarations on every rank.
    void commit(MPI_Comm comm) {
        int failed = error.empty() ? 0 : 1;
        MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm);
        if (failed) {
            if (error.empty()) error = "the declaration failed on another rank";
            return;
        }
        ok(DRI_Transfer_commit(xfer), "DRI_Transfer_commit");
    }
    PtransTransfer(const PtransTransfer&) = delete;
    PtransTransfer& operator=(const PtransTransfer&) = delete;
    ~PtransTransfer() {
        if (xfer) DRI_Transfer_destroy(&xfer);
        if (col_major) DRI_Layout_destroy(&col_major);
        if (row_major) DRI_Layout_destroy(&row_major);
        if (a_dist) DRI_Distribution_destroy(&a_dist);
        if (c_dist) DRI_Distribution_destroy(&c_dist);
        if (a_group) DRI_Group_destroy(&a_group);
        if (c_group) DRI_Group_destroy(&c_group);
        if (a_part) DRI_Partition_destroy(&a_part);
        if (c_part) DRI_Partition_destroy(&c_part);
        if (gdo) DRI_Globaldata_destroy(&gdo);
    }
};

const char* strategy_name(DRI_Strategy s) {
    switch (s) {
    case DRI_STRATEGY_ALLTOALLW:
        return "alltoallw";
    case DRI_STRATEGY_PACKED:
        return "packed";
    case DRI_STRATEGY_P2P:
        return "p2p";
    case DRI_STRATEGY_SHARED:
        return "shared";
    case DRI_STRATEGY_HYBRID:
        return "hybrid";
    case DRI_STRATEGY_NODES:
        return "nodes";
    default:
        return "?";
    }
}

} // namespace

void add_ptrans_methods(Catalog& cat, const Problem& pb, Rings& rings, int grid_p, int grid_q,
                        Index nb) {
    const auto b = std::make_shared<const PtransBlocks>(pb, rings, grid_p, grid_q, nb);
    for (int k = 0; k < rings.count(); ++k)
        b->prepare(k);
    const std::string name = "dri_ptrans";
    if (!cat.wants(name)) return;
    Probe probe;
    auto t = std::make_shared<PtransTransfer>(*b);
    t->commit(pb.comm);
    int failed = t->error.empty() ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, pb.comm);
    if (failed)
        return cat.skip(name, t->error.empty() ? "the commit failed on another rank" : t->error);
    DRI_Strategy chosen = DRI_STRATEGY_AUTO;
    DRI_Transfer_strategy(t->xfer, &chosen);
    Method m{name,
             Kind::dri,
             nullptr,
             true,
             std::string("one DRI_Do of A into C (AUTO chose ") + strategy_name(chosen) +
                 "), arriving elements added into C (DRI_COMBINE_SUM)",
             0,
             -1,
             -1};
    m.run = [t](int k) {
        int cur_send = -1, cur_recv = -1;
        DRI_Transfer_current(t->xfer, &cur_send, &cur_recv);
        if (cur_send != k || cur_recv != k) throw std::logic_error("dri-bench: ring out of step");
        if (DRI_Do(t->xfer) != DRI_SUCCESS)
            throw std::runtime_error(std::string("DRI_Do: ") + DRI_Last_error_message());
    };
    m.prepare = [b](int k) { b->prepare(k); };
    m.verify = [b](int k) { return b->verify(k); };
    cat.add(std::move(m), probe);
}

} // namespace dri::bench
