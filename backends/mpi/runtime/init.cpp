#include "mpi/runtime/init.hpp"

#include "mpi/objects.hpp"
#include "mpi/runtime/handles.hpp"

#include <mutex>
#include <set>

namespace dri::detail {

namespace {
std::mutex mutex;
bool initialized = false;
std::set<TransferImpl*>& live_transfers() {
    static std::set<TransferImpl*> s;
    return s;
}
} // namespace

bool is_initialized() noexcept {
    std::lock_guard<std::mutex> lock(mutex);
    return initialized;
}

void require_initialized() {
    if (!is_initialized())
        core::fail(core::Errc::not_initialized,
                   "DRI is not initialized: call DRI_Init after MPI_Init");
}

void runtime_init() {
    if (!mpi_alive())
        core::fail(core::Errc::not_initialized, "DRI_Init needs MPI to be initialized first");
    std::lock_guard<std::mutex> lock(mutex);
    if (initialized) core::fail(core::Errc::state, "DRI is already initialized");
    initialized = true;
}

void runtime_finalize() {
    std::set<TransferImpl*> leftover;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (!initialized) core::fail(core::Errc::not_initialized, "DRI_Finalize without DRI_Init");
        initialized = false;
        leftover.swap(live_transfers());
    }
    for (TransferImpl* t : leftover)
        t->release();
    free_retired_comms();
}

void register_transfer(TransferImpl* t) {
    std::lock_guard<std::mutex> lock(mutex);
    live_transfers().insert(t);
}

void unregister_transfer(TransferImpl* t) noexcept {
    std::lock_guard<std::mutex> lock(mutex);
    live_transfers().erase(t);
}

} // namespace dri::detail
