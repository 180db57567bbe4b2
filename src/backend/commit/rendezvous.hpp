// Commit's rendezvous: every process publishes one declaration per role it
// plays and receives everyone's, grouped by transfer name.
#pragma once

#include "backend/objects.hpp"
#include "core/declaration.hpp"

#include <mpi.h>

#include <map>
#include <span>
#include <string>

namespace dri::detail {

// Collective over comm (the library's duplicate of the committing
// communicator): the declarations of every process, by name.
std::map<std::string, core::Match> exchange_declarations(MPI_Comm comm,
                                                         std::span<TransferImpl* const> xfers);

} // namespace dri::detail
