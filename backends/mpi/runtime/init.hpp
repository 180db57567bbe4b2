// Whether DRI is initialized, and the transfers alive (finalize releases
// the MPI resources of those the application forgot).
#pragma once

namespace dri::detail {

struct TransferImpl;

// Throws core::Error(not_initialized) unless DRI is initialized.
void require_initialized();
bool is_initialized() noexcept;
void runtime_init();
// Releases every live transfer and every retired communicator, then marks
// DRI uninitialized. Memory from DRI_Alloc_mem is the user's: it stays.
void runtime_finalize();

void register_transfer(TransferImpl* t);
void unregister_transfer(TransferImpl* t) noexcept;

} // namespace dri::detail
