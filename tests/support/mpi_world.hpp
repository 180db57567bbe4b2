// Small MPI helpers shared by the MPI tests.
//
// The tests run on world(): MPI_COMM_WORLD by default or, with the
// environment variable DRI_TEST_COMM=reversed, a communicator holding the
// same processes in reversed rank order, as an application that is not the
// whole world would pass its own communicator to dri. Every rank, group and
// collective of the tests is relative to world(); MPI_COMM_WORLD appears only
// where a test means the world itself.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dri::test {

namespace detail {
// The test communicator while one other than MPI_COMM_WORLD is in use.
inline MPI_Comm& test_comm() {
    static MPI_Comm c = MPI_COMM_NULL;
    return c;
}
} // namespace detail

// The communicator the tests use.
inline MPI_Comm world() {
    const MPI_Comm c = detail::test_comm();
    return c == MPI_COMM_NULL ? MPI_COMM_WORLD : c;
}

// True when world() is the reversed communicator rather than MPI_COMM_WORLD.
inline bool world_is_reversed() {
    return detail::test_comm() != MPI_COMM_NULL;
}

// After MPI_Init, on every process: sets world() up from DRI_TEST_COMM
// ("reversed", or unset, empty or "world" for MPI_COMM_WORLD). False, with a
// message, for any other value. Rank 0 of world() says when it is reversed.
inline bool open_world() {
    const char* v = std::getenv("DRI_TEST_COMM");
    if (!v || !*v || std::strcmp(v, "world") == 0) return true;
    if (std::strcmp(v, "reversed") != 0) {
        std::fprintf(stderr, "DRI_TEST_COMM=%s: expected 'reversed' or 'world'\n", v);
        return false;
    }
    int size = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &detail::test_comm());
    int me = 0;
    MPI_Comm_rank(world(), &me);
    if (me == 0)
        std::printf("dri tests: on the reversed communicator (DRI_TEST_COMM=reversed): "
                    "rank r is world rank %d - r\n",
                    size - 1);
    std::fflush(stdout);
    return true;
}

// Before MPI_Finalize: frees the communicator open_world() made.
inline void close_world() {
    if (detail::test_comm() != MPI_COMM_NULL) MPI_Comm_free(&detail::test_comm());
}

inline int world_size() {
    int n = 1;
    MPI_Comm_size(world(), &n);
    return n;
}

inline int world_rank() {
    int r = 0;
    MPI_Comm_rank(world(), &r);
    return r;
}

// True on every rank when every rank passed the same value.
inline bool same_everywhere(int v) {
    int mm[2] = {v, -v};
    MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_INT, MPI_MAX, world());
    return mm[0] == -mm[1];
}

} // namespace dri::test
