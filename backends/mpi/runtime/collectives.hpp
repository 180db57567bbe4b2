// The collective building blocks of every collective call: agreeing on an
// outcome (the same error on every process), the library's own duplicate of
// a user communicator, and exchanging variable-size byte strings.
#pragma once

#include "core/checked.hpp"
#include "mpi/runtime/handles.hpp"

#include <mpi.h>

#include <cstddef>
#include <new>
#include <string>
#include <vector>

namespace dri::detail {

// An error every process of a collective call has thrown alike (agree()
// made it so): a later agreement passes it on without naming a rank again.
class AgreedError : public core::Error {
  public:
    using core::Error::Error;
};

// Outcome of a local step of a collective call.
struct Status {
    core::Errc code = core::Errc::success;
    std::string message;
    bool everywhere = false; // already the same on every process
    bool failed() const { return code != core::Errc::success; }
    static Status of(const core::Error& e) {
        return {e.code(), e.what(), dynamic_cast<const AgreedError*>(&e) != nullptr};
    }
};

// Runs f, turning a thrown core::Error into a Status (and bad_alloc into no_memory).
template <class F>
Status capture(F&& f) {
    try {
        f();
    } catch (const core::Error& e) {
        return Status::of(e);
    } catch (const std::bad_alloc&) {
        return {core::Errc::no_memory, "out of memory"};
    }
    return {};
}

// Collective over `comm`: the outcome of the lowest failing rank, its
// message prefixed "rank R: " (unless it was already agreed), on every
// process; success when none failed.
Status agreed(MPI_Comm comm, const Status& mine);

// Collective over `comm`: when any process failed, every process throws the
// agreed error (an AgreedError), so all fail alike.
void agree(MPI_Comm comm, const Status& mine);

// A duplicate of `comm` with MPI_ERRORS_RETURN for the library's own traffic.
MPI_Comm library_dup(MPI_Comm comm);

// Collective over comm: every process's bytes, concatenated in rank order;
// sizes_out[r] is the byte count of rank r.
std::vector<std::byte> allgather_bytes(MPI_Comm comm, const std::vector<std::byte>& mine,
                                       std::vector<core::Index>& sizes_out);

// Collective over comm: the bytes of the processes that have any, each as
// (rank, byte count, bytes) in rank order. Every process receives their
// total, however many processes have none (an allgather would carry a
// count per process): an exclusive scan places each part, and a bitwise-or
// allreduce of a zeroed buffer joins them.
std::vector<std::byte> gather_sparse(MPI_Comm comm, const std::vector<std::byte>& mine);

} // namespace dri::detail
