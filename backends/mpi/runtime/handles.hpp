// The MPI handles the library owns: checking MPI return codes, counting the
// communicators, windows and datatypes it creates (tests check the count
// returns to zero), and freeing or retiring communicators.
#pragma once

#include "core/error.hpp"

#include <mpi.h>

#include <string>

namespace dri::detail {

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

void count_handle(int delta) noexcept;
long live_handles() noexcept;
// Frees a communicator the library created (no-op for MPI_COMM_NULL).
void free_comm(MPI_Comm& c) noexcept;
// Keeps a communicator with possibly unmatched messages until finalize
// (freed then); c becomes MPI_COMM_NULL.
void retire_comm(MPI_Comm& c) noexcept;
long retired_comms() noexcept;
// DRI_Finalize: frees every retired communicator.
void free_retired_comms() noexcept;

// Owns a communicator the library created for the length of a scope.
class ScopedComm {
  public:
    explicit ScopedComm(MPI_Comm c) : c_(c) {}
    ~ScopedComm() { free_comm(c_); }
    ScopedComm(const ScopedComm&) = delete;
    ScopedComm& operator=(const ScopedComm&) = delete;
    MPI_Comm get() const { return c_; }

  private:
    MPI_Comm c_;
};

} // namespace dri::detail
