// dri-alloc-bench: how long DRI_Alloc_mem + DRI_Free_mem take on one rank
// while the others do nothing (they wait at a barrier after it: the calls
// are local). Prints the median, p90 and minimum of --reps pairs in
// microseconds; with --touch, the pair also writes one byte per page.
#include <dri/dri.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Args {
    long long bytes = 1 << 20;
    int reps = 1000;
    bool touch = false;
};

bool parse(int argc, char** argv, Args& a) {
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        if (s == "--touch") {
            a.touch = true;
        } else if (s == "--bytes" && i + 1 < argc) {
            a.bytes = std::atoll(argv[++i]);
            if (a.bytes < 0) return false;
        } else if (s == "--reps" && i + 1 < argc) {
            a.reps = std::atoi(argv[++i]);
            if (a.reps < 1) return false;
        } else {
            return false;
        }
    }
    return true;
}

double micros_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Args a;
    if (!parse(argc, argv, a)) {
        if (rank == 0)
            std::fprintf(stderr, "usage: dri-alloc-bench [--bytes N] [--reps N] [--touch]\n");
        MPI_Finalize();
        return 2;
    }
    int rc = 0;
    if (rank == size - 1) {
        std::vector<double> us;
        for (int r = 0; r < a.reps && rc == 0; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            void* p = nullptr;
            rc = DRI_Alloc_mem(a.bytes, &p);
            if (rc == 0 && a.touch)
                for (long long b = 0; b < a.bytes; b += 4096)
                    static_cast<char*>(p)[b] = 1;
            if (rc == 0) rc = DRI_Free_mem(p);
            us.push_back(micros_since(t0));
        }
        std::sort(us.begin(), us.end());
        if (rc == 0)
            std::printf("DRI_Alloc_mem + DRI_Free_mem of %lld bytes%s on rank %d of %d, others "
                        "idle: median %.1f us, p90 %.1f us, min %.1f us (%d reps)\n",
                        a.bytes, a.touch ? " (one byte per page written)" : "", rank, size,
                        us[us.size() / 2], us[us.size() * 9 / 10], us.front(), a.reps);
        else
            std::printf("dri-alloc-bench: error %d: %s\n", rc, DRI_Last_error_message());
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return rc == 0 ? 0 : 1;
}
