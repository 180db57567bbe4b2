// Corner turn: an N x M complex-float matrix distributed by rows (rows
// contiguous) is reorganized to a distribution by columns (columns
// contiguous) for K frames over a ring of B buffers on each side.
//
//   mpiexec.mpich -n 4 build/examples/corner_turn/corner_turn --n 1024 --m 512 --frames 20
//
// Modes: clique (every rank produces and consumes) or pipeline (the first
// half of the ranks produce, the others consume). Every element of every
// frame is checked; then the same number of frames is timed without the
// fill and check work, and frames/s and GB/s are printed.
#include <dri/dri.hpp>

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace {

using cf = std::complex<float>;

const char* strategy_name(dri::Strategy s) {
    switch (s) {
    case dri::Strategy::alltoallw:
        return "ALLTOALLW";
    case dri::Strategy::packed:
        return "PACKED";
    case dri::Strategy::p2p:
        return "P2P";
    case dri::Strategy::shared:
        return "SHARED";
    case dri::Strategy::hybrid:
        return "HYBRID";
    case dri::Strategy::nodes:
        return "NODES";
    default:
        return "?";
    }
}

struct Options {
    long long n = 1024, m = 768;
    int frames = 16, buffers = 2;
    bool pipeline = false;
};

[[noreturn]] void usage(int rank) {
    if (rank == 0)
        std::fprintf(stderr, "usage: corner_turn [--n ROWS] [--m COLS] [--frames K] [--buffers B] "
                             "[--mode clique|pipeline]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
    std::exit(2);
}

Options parse(int argc, char** argv, int rank) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) usage(rank);
        const char* v = argv[++i];
        if (a == "--n")
            o.n = std::atoll(v);
        else if (a == "--m")
            o.m = std::atoll(v);
        else if (a == "--frames")
            o.frames = std::atoi(v);
        else if (a == "--buffers")
            o.buffers = std::atoi(v);
        else if (a == "--mode" && std::strcmp(v, "clique") == 0)
            o.pipeline = false;
        else if (a == "--mode" && std::strcmp(v, "pipeline") == 0)
            o.pipeline = true;
        else
            usage(rank);
    }
    if (o.n < 1 || o.m < 1 || o.frames < 1 || o.buffers < 1) usage(rank);
    return o;
}

// Exactly representable test values: element (i, j) of frame k.
cf value(long long i, long long j, long long m, int k) {
    return {static_cast<float>((i * m + j) % 16777216), static_cast<float>(k % 4096)};
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const Options o = parse(argc, argv, rank);
    if (o.pipeline && size < 2) {
        if (rank == 0) std::fprintf(stderr, "corner_turn: pipeline mode needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    long long bad = 0;
    double seconds = 0;
    dri::Strategy chosen = dri::Strategy::automatic;
    try {
        dri::Session session;
        // Producers and consumers.
        std::vector<int> producers, consumers;
        for (int r = 0; r < size; ++r) {
            if (!o.pipeline || r < size / 2) producers.push_back(r);
            if (!o.pipeline || r >= size / 2) consumers.push_back(r);
        }
        const dri::GlobalData matrix({o.n, o.m}, dri::Type::complex_float);
        const dri::Group pgroup(MPI_COMM_WORLD, producers), cgroup(MPI_COMM_WORLD, consumers);
        const dri::Layout rows_contiguous = dri::Layout::packed(2);
        const dri::Layout cols_contiguous = dri::Layout::ordered({1, 0});

        // Send buffers in node shared memory (dri::allocator, a local call),
        // so that consumers on the same node copy straight from them: AUTO
        // picks the single copy (SHARED). Declared before the transfer.
        std::optional<dri::Distribution> by_rows;
        dri::BlockInfo sblock, rblock;
        std::vector<std::vector<cf, dri::allocator<cf>>> sbuf;
        if (pgroup.contains_me()) {
            by_rows.emplace(matrix, dri::Partition({dri::DimPart::block(), dri::DimPart::whole()}),
                            pgroup);
            sblock = by_rows->block(rows_contiguous);
            sbuf.assign(
                static_cast<std::size_t>(o.buffers),
                std::vector<cf, dri::allocator<cf>>(static_cast<std::size_t>(sblock.elements())));
        }
        dri::Transfer turn("corner turn");
        std::vector<std::vector<cf>> rbuf;
        if (by_rows) turn.send(*by_rows, rows_contiguous, sbuf);
        if (cgroup.contains_me()) {
            const dri::Distribution by_cols(
                matrix, dri::Partition({dri::DimPart::whole(), dri::DimPart::block()}), cgroup);
            rblock = by_cols.block(cols_contiguous);
            rbuf.assign(static_cast<std::size_t>(o.buffers),
                        std::vector<cf>(static_cast<std::size_t>(rblock.elements())));
            turn.recv(by_cols, cols_contiguous, rbuf);
        }
        turn.commit();
        chosen = turn.chosen_strategy();

        auto fill = [&](int k) {
            if (!by_rows) return;
            auto& b = sbuf[static_cast<std::size_t>(k % o.buffers)];
            const long long r0 = sblock.owned_first[0], nr = sblock.local_extent[0];
            for (long long i = 0; i < nr; ++i)
                for (long long j = 0; j < o.m; ++j)
                    b[static_cast<std::size_t>(i * o.m + j)] = value(r0 + i, j, o.m, k);
        };
        auto check = [&](int k) {
            if (rbuf.empty()) return;
            const auto& b = rbuf[static_cast<std::size_t>(k % o.buffers)];
            const long long c0 = rblock.owned_first[1], nc = rblock.local_extent[1];
            for (long long j = 0; j < nc; ++j)
                for (long long i = 0; i < o.n; ++i)
                    if (b[static_cast<std::size_t>(j * o.n + i)] != value(i, c0 + j, o.m, k)) ++bad;
        };

        // Verified run: with two or more buffers the next frame is filled and
        // the previous one checked while a frame is in flight.
        if (o.buffers >= 2) {
            fill(0);
            turn.start();
            for (int k = 0; k < o.frames; ++k) {
                if (k + 1 < o.frames) fill(k + 1);
                turn.wait();
                if (k + 1 < o.frames) turn.start();
                check(k);
            }
        } else {
            for (int k = 0; k < o.frames; ++k) {
                fill(k);
                turn.execute();
                check(k);
            }
        }
        // Timed run: the reorganization alone.
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int k = 0; k < o.frames; ++k)
            turn.execute();
        MPI_Barrier(MPI_COMM_WORLD);
        seconds = MPI_Wtime() - t0;
    } catch (const dri::Error& e) {
        std::fprintf(stderr, "rank %d: dri error %d: %s\n", rank, static_cast<int>(e.code()),
                     e.what());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        const double bytes = static_cast<double>(o.n) * static_cast<double>(o.m) * sizeof(cf);
        std::printf("corner_turn: %lld x %lld complex float, %d ranks (%s), %d frames, %d buffers, "
                    "strategy %s: %s\n",
                    o.n, o.m, size, o.pipeline ? "pipeline" : "clique", o.frames, o.buffers,
                    strategy_name(chosen), bad == 0 ? "verified" : "MISMATCH");
        if (bad) std::printf("corner_turn: %lld wrong elements\n", bad);
        std::printf("corner_turn: %.1f frames/s, %.3f GB/s (%.3f ms per frame)\n",
                    o.frames / seconds, bytes * o.frames / seconds / 1e9, seconds / o.frames * 1e3);
    }
    MPI_Finalize();
    return bad == 0 ? 0 : 1;
}
