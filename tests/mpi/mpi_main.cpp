// doctest runner for MPI tests: every rank runs the same test cases (they
// call collectives in the same order); the process exits non-zero when any
// rank failed, so one rank's failure fails the ctest test. The tests run on
// dri::test::world() (DRI_TEST_COMM=reversed: the world's processes in
// reversed rank order), made here after MPI_Init and freed before
// MPI_Finalize.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "../support/mpi_world.hpp"
#include "dri/dri.hpp"
#include "mpi/runtime/handles.hpp" // live_handles(): the library's own MPI handle count

#include <mpi.h>

#include <cstdio>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (!dri::test::open_world()) {
        MPI_Finalize();
        return 2;
    }
    const int rank = dri::test::world_rank();
    int failed = 0;
    {
        dri::Session session;
        doctest::Context ctx;
        ctx.applyCommandLine(argc, argv);
        if (rank != 0)
            ctx.setOption("minimal", true); // rank 0 reports; the others only their failures
        const int rc = ctx.run();
        if (rc != 0 && rank != 0)
            std::fprintf(stderr, "rank %d: test failures (rerun to see details)\n", rank);
        failed = rc != 0;
        // Every test's objects are gone: the library must hold no MPI handle
        // but the communicators of abandoned reorganizations (kept until
        // DRI_Finalize), and none at all after it. The test communicator is
        // the tests', not the library's: it is not counted.
        const long held = dri::detail::live_handles() - dri::detail::retired_comms();
        if (held != 0) {
            std::fprintf(stderr, "rank %d: dri leaked %ld MPI handles\n", rank, held);
            failed = 1;
        }
    }
    if (dri::detail::live_handles() != 0) {
        std::fprintf(stderr, "rank %d: dri holds %ld MPI handles after DRI_Finalize\n", rank,
                     dri::detail::live_handles());
        failed = 1;
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, dri::test::world());
    dri::test::close_world();
    MPI_Finalize();
    return failed;
}
