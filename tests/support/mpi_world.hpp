// Small MPI helpers shared by the MPI tests.
#pragma once

#include <mpi.h>

namespace dri::test {

inline int world_size() {
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

inline int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

// True on every rank when every rank passed the same value.
inline bool same_everywhere(int v) {
    int mm[2] = {v, -v};
    MPI_Allreduce(MPI_IN_PLACE, mm, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return mm[0] == -mm[1];
}

} // namespace dri::test
