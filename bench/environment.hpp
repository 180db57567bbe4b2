// Where the benchmark runs: the MPI library and the node layout as
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) reports it (simulated nodes
// too: MPICH's MPIR_CVAR_NUM_CLIQUES).
#pragma once

#include <mpi.h>

#include <string>

namespace dri::bench {

struct Environment {
    std::string library;  // first line of MPI_Get_library_version
    std::string standard; // MPI_Get_version, e.g. "4.0"
    int ranks = 1, nodes = 1, min_per_node = 1, max_per_node = 1;
};

// Collective over comm.
Environment environment(MPI_Comm comm);

// The ranks of `comm` that are among the first k of their node, in rank
// order; MPI_COMM_NULL on the others. Collective over comm.
MPI_Comm first_of_each_node(MPI_Comm comm, int k);

} // namespace dri::bench
