// dri-partitioned-probe: when does a piece marked ready reach its receiver,
// through MPI-4 partitioned communication (MPI_Psend_init, MPI_Pready,
// MPI_Parrived) against one MPI_Isend per piece, on the MPI library alone?
// Rank 0 "computes" each of P pieces of a frame (a busy wait of W
// microseconds) and marks it ready; rank 1 polls for each piece in order
// and records when it arrived. Printed per method: when the first piece
// arrived after it was marked, and when the last arrived after the last was
// marked, medians over the reps. A method that overlaps moves each piece
// while the next is computed: its first piece arrives about one piece's
// transfer after its marking. This is why dri moves pieces as messages
// (docs/concepts.md, "Pieces and MPI-4 partitioned communication").
//
//   mpiexec -n 2 dri-partitioned-probe [MiB per frame] [pieces] [us of work per piece] [reps]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

struct Args {
    long mib = 128;
    int pieces = 32;
    double work_us = 500;
    int reps = 10;
};

void busy(double us) {
    const double until = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < until) {
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Times of one frame, seconds after the frame's start on each rank (both
// ranks leave a barrier together, so the two clocks share that origin up to
// the barrier's skew).
struct Frame {
    std::vector<double> marked, arrived;
};

// One frame through one persistent partitioned send / receive.
#if MPI_VERSION >= 4
void partitioned(const Args& a, std::vector<char>& buf, int rank, Frame& f) {
    const MPI_Count part = static_cast<MPI_Count>(buf.size()) / a.pieces;
    MPI_Request req = MPI_REQUEST_NULL;
    if (rank == 0)
        MPI_Psend_init(buf.data(), a.pieces, part, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &req);
    else
        MPI_Precv_init(buf.data(), a.pieces, part, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_INFO_NULL,
                       &req);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPI_Start(&req);
    for (int k = 0; k < a.pieces; ++k) {
        if (rank == 0) {
            busy(a.work_us);
            MPI_Pready(k, req);
            f.marked[static_cast<std::size_t>(k)] = MPI_Wtime() - t0;
        } else {
            int flag = 0;
            while (!flag)
                MPI_Parrived(req, k, &flag);
            f.arrived[static_cast<std::size_t>(k)] = MPI_Wtime() - t0;
        }
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
}
#endif

// The same frame as one MPI_Isend per piece, received by one MPI_Irecv each.
void messages(const Args& a, std::vector<char>& buf, int rank, Frame& f) {
    const int part = static_cast<int>(buf.size() / static_cast<std::size_t>(a.pieces));
    std::vector<MPI_Request> reqs(static_cast<std::size_t>(a.pieces), MPI_REQUEST_NULL);
    if (rank == 1)
        for (int k = 0; k < a.pieces; ++k)
            MPI_Irecv(buf.data() + static_cast<std::size_t>(k) * part, part, MPI_BYTE, 0, k,
                      MPI_COMM_WORLD, &reqs[static_cast<std::size_t>(k)]);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int k = 0; k < a.pieces; ++k) {
        if (rank == 0) {
            busy(a.work_us);
            MPI_Isend(buf.data() + static_cast<std::size_t>(k) * part, part, MPI_BYTE, 1, k,
                      MPI_COMM_WORLD, &reqs[static_cast<std::size_t>(k)]);
            f.marked[static_cast<std::size_t>(k)] = MPI_Wtime() - t0;
        } else {
            MPI_Wait(&reqs[static_cast<std::size_t>(k)], MPI_STATUS_IGNORE);
            f.arrived[static_cast<std::size_t>(k)] = MPI_Wtime() - t0;
        }
    }
    MPI_Waitall(a.pieces, reqs.data(), MPI_STATUSES_IGNORE);
}

template <class Run>
void report(const char* name, const Args& a, std::vector<char>& buf, int rank, Run run) {
    std::vector<double> first, last, frame;
    for (int r = 0; r < a.reps; ++r) {
        Frame f{std::vector<double>(static_cast<std::size_t>(a.pieces)),
                std::vector<double>(static_cast<std::size_t>(a.pieces))};
        run(a, buf, rank, f);
        // Rank 1 learns when each piece was marked.
        MPI_Bcast(f.marked.data(), a.pieces, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 1) {
            first.push_back(f.arrived.front() - f.marked.front());
            last.push_back(f.arrived.back() - f.marked.back());
            frame.push_back(f.arrived.back());
        }
    }
    if (rank == 1)
        std::printf("%-26s first piece after its marking %8.3f ms, last piece after its marking "
                    "%8.3f ms, frame %8.3f ms (medians of %d)\n",
                    name, 1e3 * median(first), 1e3 * median(last), 1e3 * median(frame), a.reps);
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Args a;
    if (argc > 1) a.mib = std::atol(argv[1]);
    if (argc > 2) a.pieces = std::atoi(argv[2]);
    if (argc > 3) a.work_us = std::atof(argv[3]);
    if (argc > 4) a.reps = std::atoi(argv[4]);
    if (size != 2 || a.mib < 1 || a.pieces < 1 || a.reps < 1 || a.work_us < 0) {
        if (rank == 0)
            std::fprintf(stderr, "usage: mpiexec -n 2 dri-partitioned-probe [MiB] [pieces] "
                                 "[us of work per piece] [reps]\n");
        MPI_Finalize();
        return 2;
    }
    std::vector<char> buf(static_cast<std::size_t>(a.mib) << 20, 1);
    if (rank == 1)
        std::printf("%ld MiB in %d pieces, %.0f us of work per piece, %d reps\n", a.mib, a.pieces,
                    a.work_us, a.reps);
    report("MPI_Isend per piece", a, buf, rank, messages);
#if MPI_VERSION >= 4
    report("MPI_Psend_init/MPI_Pready", a, buf, rank, partitioned);
#else
    if (rank == 1)
        std::printf("MPI_Psend_init/MPI_Pready   not available: this MPI library is MPI-%d.%d\n",
                    MPI_VERSION, MPI_SUBVERSION);
#endif
    MPI_Finalize();
    return 0;
}
