// Which MPI library dri runs on, from MPI_Get_library_version: the routes a
// message takes depend on how well its datatype engine and its shared-memory
// transport do with strided memory (docs/concepts.md, "How P2P routes a side").
#pragma once

#include <string>
#include <string_view>

namespace dri::detail {

enum class MpiLibrary { mpich, open_mpi, other };

// The library's family from its version string (pure: unit of the probe).
MpiLibrary library_from_version(std::string_view version);

// The running library's family; asked once, after MPI_Init.
MpiLibrary mpi_library();

// The running library's own description (MPI_Get_library_version), whole.
std::string mpi_library_version();

} // namespace dri::detail
