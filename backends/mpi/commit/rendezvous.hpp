// Commit's rendezvous: the declarations of every transfer being committed,
// matched by name and validated, with what each process receives
// independent of the number of processes: the first process of each side's
// group publishes the side once, every process checks its own declaration
// against it, and a count per side shows that every member declared.
#pragma once

#include "core/declaration.hpp"
#include "mpi/objects.hpp"

#include <mpi.h>

#include <map>
#include <span>
#include <string>

namespace dri::detail {

// Collective over comm (the library's duplicate of the committing
// communicator): every name's sides, validated. Any error is thrown alike
// on every process.
std::map<std::string, core::Match> exchange_declarations(MPI_Comm comm,
                                                         std::span<TransferImpl* const> xfers);

// The receiving side of `m` that this process's receiving role of `t`
// belongs to (after the exchange), or -1 when it has no receiving role.
int receiving_side(const TransferImpl& t, const core::Match& m);

} // namespace dri::detail
