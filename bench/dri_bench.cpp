// dri-bench: times one reorganization, given in dri-plan's notation or as a
// named scenario, with every method in the same process: the DRI strategies
// and the baselines (MPI_Alltoallw with subarray types, the naive and the
// expert hand-written pack + MPI_Alltoallv, ScaLAPACK's PxGEMR2D) and the
// memcpy bound. Each method is checked against the oracle before it is
// timed; times are the slowest rank's. --scenario reverse_halo times the
// reverse (SUM) of a halo exchange against a hand-written accumulation
// instead (bench/reverse_halo.cpp); --scenario pipeline and pipeline_turn
// the latency of a frame that moves in pieces as it is produced
// (bench/pipeline.cpp). See docs/bench.md.
//
//   mpiexec.mpich -n 2 dri-bench --shape 4096x4096 --type cfloat --send block,whole
//       --recv whole,block --recv-order 1,0 --reps 50 --json out.json
#include "pipeline.hpp"
#include "run.hpp"

#include <dri/dri.hpp>

#include <cstdio>
#include <exception>
#include <malloc.h>
#include <string>

namespace {

using namespace dri::bench;

// The runs of the invocation, one per sweep point; a point the spec does
// not fit (a size too small for the partition) is reported and skipped.
std::vector<RunResult> run_all(const Options& o, const Environment& world_env, int& status) {
    std::vector<RunResult> runs;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<std::pair<std::string, int>> points; // shape, ranks per node (0: all)
    if (o.sweep == "sizes") {
        for (const std::string& s :
             sweep_shapes(resolve_spec(o, "", world_env.ranks).shape, o.sweep_steps))
            points.emplace_back(s, 0);
    } else if (o.sweep == "ranks-per-node") {
        for (int k = 1; k <= world_env.max_per_node; ++k)
            points.emplace_back("", k);
    } else {
        points.emplace_back("", 0);
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto& [shape, k] = points[i];
        MPI_Comm comm = k ? first_of_each_node(MPI_COMM_WORLD, k) : MPI_COMM_WORLD;
        if (rank == 0 && points.size() > 1)
            std::fprintf(stderr, "dri-bench: sweep point %zu/%zu: %s\n", i + 1, points.size(),
                         k ? ("ranks per node " + std::to_string(k)).c_str() : shape.c_str());
        if (comm != MPI_COMM_NULL) {
            int size = 0;
            MPI_Comm_size(comm, &size);
            try {
                if (is_pipeline_scenario(o.scenario)) { // it prints its own report
                    for (RunResult& r : run_pipeline(o, resolve_spec(o, shape, size), comm))
                        runs.push_back(std::move(r));
                } else {
                    runs.push_back(run_once(o, resolve_spec(o, shape, size), comm));
                    if (rank == 0) print_run(runs.back());
                }
            } catch (const std::exception& e) { // the same on every rank
                if (rank == 0) std::fprintf(stderr, "dri-bench: %s\n", e.what());
                status = 2;
            }
            if (k) MPI_Comm_free(&comm);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return runs;
}

} // namespace

int main(int argc, char** argv) {
    // Keep freed memory in the heap: methods that allocate temporaries per
    // call (ScaLAPACK's pxgemr2d: about 100 MB per call) would otherwise pay
    // page faults each time and slow down the method timed after them.
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    Options o;
    if (const int rc = parse_options(argc, argv, rank, o); rc >= 0) {
        MPI_Finalize();
        return rc;
    }
    const Environment env = environment(MPI_COMM_WORLD);
    if (rank == 0) print_header(o, env);
    // Chosen now (each rank its own, measured at once), not inside the first
    // method's setup; rank 0's.
    const std::string kernels = dri::kernel_tuning();
    if (rank == 0) std::printf("kernel parameters (rank 0): %s\n", kernels.c_str());
    int status = 0;
    std::vector<RunResult> runs;
    {
        dri::Session session;
        runs = run_all(o, env, status);
    }
    bool wrong = false;
    for (const RunResult& r : runs)
        wrong |= r.wrong;
    if (rank == 0) {
        try {
            if (!o.json.empty()) write_json(o.json, to_json(o, env, runs));
            if (!o.csv.empty()) write_csv(o.csv, runs);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "dri-bench: %s\n", e.what());
            status = 2;
        }
        if (wrong) std::printf("dri-bench: WRONG DATA (see above)\n");
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return wrong ? 1 : status;
}
