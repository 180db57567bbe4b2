// Library-wide state: initialization, the transfers that hold MPI
// resources (released by finalize), and MPI error checking.
#pragma once

#include "error.hpp"

#include <mpi.h>

#include <new>
#include <string>

namespace dri::detail {

struct TransferImpl;

// Throws core::Error(not_initialized) unless DRI is initialized.
void require_initialized();
bool is_initialized() noexcept;
void runtime_init();
void runtime_finalize();

void register_transfer(TransferImpl* t);
void unregister_transfer(TransferImpl* t) noexcept;

// Turns an MPI return code into core::Error(Errc::mpi) naming the call.
inline void check_mpi(int rc, const char* call) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
    core::fail(core::Errc::mpi,
               std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

// True while MPI is initialized and not finalized (MPI handles may be freed).
bool mpi_alive() noexcept;

// Accounting of the MPI handles the library owns (communicators and
// datatypes): tests check it returns to zero once every object is gone.
void count_handle(int delta) noexcept;
long live_handles() noexcept;
// Frees a communicator the library created (no-op for MPI_COMM_NULL).
void free_comm(MPI_Comm& c) noexcept;
// Keeps a communicator with possibly unmatched messages until finalize
// (freed then); c becomes MPI_COMM_NULL.
void retire_comm(MPI_Comm& c) noexcept;
long retired_comms() noexcept;

} // namespace dri::detail

namespace dri::detail {

// Outcome of a local step of a collective call.
struct Status {
    core::Errc code = core::Errc::success;
    std::string message;
    bool failed() const { return code != core::Errc::success; }
    static Status of(const core::Error& e) { return {e.code(), e.what()}; }
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

// Collective over `comm`: when any process failed, every process throws the
// error of the lowest failing rank ("rank R: message"), so all agree.
void agree(MPI_Comm comm, const Status& mine);

// A duplicate of `comm` with MPI_ERRORS_RETURN for the library's own traffic.
MPI_Comm library_dup(MPI_Comm comm);

} // namespace dri::detail
