// The planning core's randomized property test over real MPI: random
// shapes, partitions (overlap with every edge policy, block-cyclic, explicit
// ranges), permuted/padded/strided layouts, element records of odd size, and
// random sender and receiver groups (clique, bipartite, partly shared, any
// order), several buffers cycled over several frames, blocking and
// non-blocking. Every byte of every receive buffer is checked every frame.
// DRI_SEED replays a run, DRI_MPI_CASES sets the number of cases.
#include "case_replay.hpp"
#include "mpi_world.hpp"
#include "random_case.hpp"
#include "scenario.hpp"

#include <doctest/doctest.h>

#include <optional>

TEST_CASE("random redistributions over MPI deliver every byte of every frame") {
    int rank = 0, world = 1;
    MPI_Comm_rank(dri::test::world(), &rank);
    MPI_Comm_size(dri::test::world(), &world);
    unsigned long long seed = dri::test::env_u64("DRI_SEED", std::random_device{}());
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, dri::test::world());
    const std::uint64_t cases = dri::test::env_u64("DRI_MPI_CASES", 50);
    if (rank == 0)
        std::printf("random MPI test: seed %llu, %llu cases, %d ranks\n", seed,
                    (unsigned long long)cases, world);
    dri::Index cells = 0;
    int failures = 0;
    for (std::uint64_t i = 0; i < cases; ++i) {
        const std::uint64_t case_seed = dri::test::mix_seed(seed ^ dri::test::mix_seed(i));
        dri::test::CaseGenerator gen(case_seed, std::min(world, 7), 2000);
        const dri::test::RandomCase c = gen.draw();
        std::mt19937_64 rng(case_seed);
        const std::vector<int> sranks = dri::test::random_ranks(rng, world, c.send_procs);
        const std::vector<int> rranks = (c.shared && c.send_procs == c.recv_procs)
                                            ? sranks
                                            : dri::test::random_ranks(rng, world, c.recv_procs);
        const int nbuf_s = static_cast<int>(rng() % 3) + 1,
                  nbuf_r = static_cast<int>(rng() % 3) + 1;
        const int frames = 3;
        const bool nonblocking = rng() % 2 == 0;
        INFO("case " << i << " (replay: DRI_SEED=" << seed << ")\n  " << c.describe());

        dri::test::Scenario sc;
        sc.shape = c.shape;
        sc.send_part = c.send_part;
        sc.recv_part = c.recv_part;
        sc.send_order = c.send_order;
        sc.recv_order = c.recv_order;
        sc.send_layout = c.send_layout;
        sc.recv_layout = c.recv_layout;
        sc.send_ranks = sranks;
        sc.recv_ranks = rranks;
        sc.nbuf_s = nbuf_s;
        sc.nbuf_r = nbuf_r;
        sc.frames = frames;
        sc.nonblocking = nonblocking;
        // Every strategy; the single copies (SHARED, HYBRID) and AUTO also
        // over send rings in node shared memory.
        sc.strategy = static_cast<dri::Strategy>(rng() % 8);
        // Node shared memory from each of its sources in turn.
        using Memory = dri::test::Scenario::Memory;
        const bool shared = sc.strategy == dri::Strategy::shared ||
                            sc.strategy == dri::Strategy::hybrid ||
                            (sc.strategy == dri::Strategy::automatic && rng() % 2);
        sc.memory = shared ? static_cast<Memory>(1 + rng() % 3) : Memory::heap;
        sc.name = "random case " + std::to_string(i);
        const dri::test::ScenarioResult res = dri::test::run_scenario(sc);
        CHECK_MESSAGE(res.error.empty(), res.error);
        cells += res.cells;
        failures += dri::test::all_ok(res) ? 0 : 1;
        if (failures > 3) break;
    }
    long long total = static_cast<long long>(cells);
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, dri::test::world());
    if (rank == 0) std::printf("random MPI test: checked %lld receive cells\n", total);
}
