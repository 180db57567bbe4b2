// A learned file over MPI (docs/api.md, "A learned file"): the keys that
// say which transfer, on which node layout, an entry is about; starting an
// adaptive transfer from the file at commit; and writing what transfers
// learned. The text and its checks are core/learned_routes.hpp's.
#pragma once

#include "core/learned_routes.hpp"
#include "mpi/objects.hpp"
#include "mpi/strategies/adaptive.hpp"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace dri::detail {

// What this dri and this MPI library write into, and expect of, a file.
core::LearnedOrigin learned_origin();

// The file this process asks a transfer to start from: its own
// (DRI_Transfer_set_learned_file), else the environment's DRI_AUTO_LEARNED;
// "" for none.
std::string learned_path(const TransferImpl& t);

// Collective over the pair's `comm`: the keys of the pair whose plan on this
// process is `plan`: the transfer's (every process's plan, in rank order) and
// its node layout's (which processes share a node).
struct LearnedKeys {
    std::uint64_t transfer = 0, nodes = 0;
};
LearnedKeys learned_keys(std::uint64_t plan, MPI_Comm comm);

// Collective over the pair's `comm`, at commit, when its first process asks
// for a file (`path`, meaningful there only): that process reads it, and an
// entry for this pair with the routes `a` holds seeds every process's
// learner alike. Anything else (no file, a damaged or foreign one, no entry)
// is ignored with a warning naming the file, the transfer and why.
void seed_from_learned_file(AdaptiveExecutor& a, const std::string& path, const std::string& name,
                            MPI_Comm comm);

// The entry of one adaptive executor as it stands, with its keys.
core::LearnedEntry learned_entry(const AdaptiveExecutor& a, const LearnedKeys& keys);

// Local: writes `entries` into the file at `path`, replacing those about
// the same transfers and keeping the others, through a temporary file in
// the same folder renamed over it (a reader never sees half a file; no
// temporary is left behind). A file there that is no learned file is not
// overwritten. Throws Errc::arg with the reason.
void write_learned_file(const std::string& path, const std::vector<core::LearnedEntry>& entries);

} // namespace dri::detail
