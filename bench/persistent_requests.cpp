// What persistent point-to-point requests could save per reorganization
// (issue 31, item 3), measured on the MPI library alone: every rank
// exchanges BYTES with every other rank, as P2P does for a block-to-block
// corner turn, either with fresh MPI_Irecv/MPI_Isend each time or with
// requests made once by MPI_Recv_init/MPI_Send_init and restarted by
// MPI_Startall; MPI_Alltoall of the same bytes is the reference, and on
// MPI 4 libraries its persistent form (MPI_Alltoall_init, MPI_Start) too.
// The methods alternate within one run, so that the machine's noise hits each
// alike; each prints its median and minimum time per exchange (the slowest
// rank's), and every exchange's data is checked.
//
//   mpiexec -n 2 dri-persistent-bench [BYTES [REPS]]   (default 8192 20000)
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

namespace {

struct Exchange {
    int me = 0, n = 1, bytes = 0;
    std::vector<char> send, recv;
    std::vector<MPI_Request> fresh, persistent;
    MPI_Request collective = MPI_REQUEST_NULL; // MPI_Alltoall_init's (MPI 4)

    Exchange(int rank, int size, int b)
        : me(rank), n(size), bytes(b), send(static_cast<std::size_t>(b) * size, 1),
          recv(static_cast<std::size_t>(b) * size, 0) {
        for (int p = 0; p < n; ++p) {
            if (p == me) continue;
            persistent.push_back(MPI_REQUEST_NULL);
            MPI_Recv_init(at(recv, p), bytes, MPI_BYTE, p, 0, MPI_COMM_WORLD, &persistent.back());
        }
        for (int p = 0; p < n; ++p) {
            if (p == me) continue;
            persistent.push_back(MPI_REQUEST_NULL);
            MPI_Send_init(at(send, p), bytes, MPI_BYTE, p, 0, MPI_COMM_WORLD, &persistent.back());
        }
        fresh.resize(persistent.size(), MPI_REQUEST_NULL);
#if MPI_VERSION >= 4
        MPI_Alltoall_init(send.data(), bytes, MPI_BYTE, recv.data(), bytes, MPI_BYTE,
                          MPI_COMM_WORLD, MPI_INFO_NULL, &collective);
#endif
        for (int p = 0; p < n; ++p)
            for (int i = 0; i < bytes; ++i)
                at(send, p)[i] = value(me, p, i);
    }
    static char value(int from, int to, int i) {
        return static_cast<char>(from * 31 + to * 7 + i);
    }
    // Every byte from every peer where it belongs; clears recv for the next exchange.
    bool arrived_exact() {
        bool ok = true;
        for (int p = 0; p < n; ++p)
            for (int i = 0; i < bytes; ++i)
                ok = ok && at(recv, p)[i] == value(p, me, i);
        std::fill(recv.begin(), recv.end(), 0);
        return ok;
    }
    ~Exchange() {
        for (MPI_Request& r : persistent)
            MPI_Request_free(&r);
        if (collective != MPI_REQUEST_NULL) MPI_Request_free(&collective);
    }
    char* at(std::vector<char>& v, int peer) {
        return v.data() + static_cast<std::size_t>(peer) * static_cast<std::size_t>(bytes);
    }
    void self_copy() {
        std::memcpy(at(recv, me), at(send, me), static_cast<std::size_t>(bytes));
    }

    void with_fresh_requests() {
        std::size_t k = 0;
        for (int p = 0; p < n; ++p)
            if (p != me) MPI_Irecv(at(recv, p), bytes, MPI_BYTE, p, 0, MPI_COMM_WORLD, &fresh[k++]);
        for (int p = 0; p < n; ++p)
            if (p != me) MPI_Isend(at(send, p), bytes, MPI_BYTE, p, 0, MPI_COMM_WORLD, &fresh[k++]);
        self_copy();
        MPI_Waitall(static_cast<int>(fresh.size()), fresh.data(), MPI_STATUSES_IGNORE);
    }
    void with_persistent_requests() {
        MPI_Startall(static_cast<int>(persistent.size()), persistent.data());
        self_copy();
        MPI_Waitall(static_cast<int>(persistent.size()), persistent.data(), MPI_STATUSES_IGNORE);
    }
    void with_alltoall() {
        MPI_Alltoall(send.data(), bytes, MPI_BYTE, recv.data(), bytes, MPI_BYTE, MPI_COMM_WORLD);
    }
    void with_persistent_alltoall() {
        MPI_Start(&collective);
        MPI_Wait(&collective, MPI_STATUS_IGNORE);
    }
};

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int me = 0, n = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const int bytes = argc > 1 ? std::atoi(argv[1]) : 8192;
    const int reps = argc > 2 ? std::atoi(argv[2]) : 20000;
    if (bytes < 0 || reps < 1) {
        if (me == 0) std::fprintf(stderr, "usage: dri-persistent-bench [BYTES >= 0 [REPS >= 1]]\n");
        MPI_Finalize();
        return 2;
    }
    int status = 0;
    {
        Exchange x(me, n, bytes);
        std::vector<const char*> names = {"MPI_Irecv/MPI_Isend", "MPI_Startall (persistent)",
                                          "MPI_Alltoall"};
        std::vector<std::function<void()>> methods = {[&] { x.with_fresh_requests(); },
                                                      [&] { x.with_persistent_requests(); },
                                                      [&] { x.with_alltoall(); }};
        if (x.collective != MPI_REQUEST_NULL) {
            names.push_back("MPI_Alltoall_init (persist.)");
            methods.push_back([&] { x.with_persistent_alltoall(); });
        }
        const std::size_t nm = methods.size();
        std::vector<std::vector<double>> times(nm);
        int wrong = 0;
        const int warmup = std::min(reps, 100);
        for (int r = 0; r < warmup + reps; ++r)
            for (std::size_t m = 0; m < nm; ++m) {
                MPI_Barrier(MPI_COMM_WORLD);
                const double t0 = MPI_Wtime();
                methods[m]();
                double dt = MPI_Wtime() - t0, slowest = 0;
                MPI_Reduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                if (r >= warmup) times[m].push_back(slowest);
                wrong += x.arrived_exact() ? 0 : 1;
            }
        int wrong_anywhere = 0;
        MPI_Reduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (me == 0 && wrong_anywhere) {
            std::printf("WRONG data in %d exchanges\n", wrong_anywhere);
            status = 1;
        } else if (me == 0) {
            std::printf("%d ranks, %d bytes per pair, %d exchanges each (slowest rank)\n", n, bytes,
                        reps);
            for (std::size_t m = 0; m < nm; ++m) {
                std::vector<double>& t = times[m];
                std::sort(t.begin(), t.end());
                std::printf("  %-29s median %8.2f us   min %8.2f us\n", names[m],
                            1e6 * t[t.size() / 2], 1e6 * t.front());
            }
        }
    }
    MPI_Finalize();
    return status;
}
