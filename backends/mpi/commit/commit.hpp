#pragma once

#include "mpi/objects.hpp"
#include "mpi/runtime/collectives.hpp"
#include "mpi/runtime/init.hpp"

#include <span>

namespace dri::detail {

// Collective over `comm`: matches names, validates both sides of every
// transfer identically on every process, and builds the executors. Throws
// core::Error with the same code on every process on failure, leaving every
// transfer uncommitted.
void commit_transfers(MPI_Comm comm, std::span<TransferImpl* const> xfers, const Status& pre);

} // namespace dri::detail
