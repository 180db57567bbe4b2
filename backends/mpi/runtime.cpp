#include "runtime.hpp"

#include "objects.hpp"
#include "shared.hpp"

#include <atomic>
#include <climits>
#include <mutex>
#include <set>
#include <vector>

namespace dri::detail {

namespace {
std::atomic<long> handles{0};
std::mutex mutex;
bool initialized = false;
std::set<TransferImpl*>& live_transfers() {
    static std::set<TransferImpl*> s;
    return s;
}
std::vector<MPI_Comm>& retired() {
    static std::vector<MPI_Comm> v;
    return v;
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

bool mpi_alive() noexcept {
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

void count_handle(int delta) noexcept {
    handles += delta;
}
long live_handles() noexcept {
    return handles.load();
}

void free_comm(MPI_Comm& c) noexcept {
    if (c == MPI_COMM_NULL) return;
    if (mpi_alive()) MPI_Comm_free(&c);
    c = MPI_COMM_NULL;
    count_handle(-1);
}

void retire_comm(MPI_Comm& c) noexcept {
    if (c == MPI_COMM_NULL) return;
    try {
        std::lock_guard<std::mutex> lock(mutex);
        retired().push_back(c);
    } catch (...) {
        return; // out of memory: keep it in the executor, freed with it
    }
    c = MPI_COMM_NULL;
}

long retired_comms() noexcept {
    std::lock_guard<std::mutex> lock(mutex);
    return static_cast<long>(retired().size());
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
    shared_release_all();
    std::vector<MPI_Comm> comms;
    {
        std::lock_guard<std::mutex> lock(mutex);
        comms.swap(retired());
    }
    for (MPI_Comm& c : comms)
        free_comm(c);
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

namespace dri::detail {

void agree(MPI_Comm comm, const Status& mine) {
    int me = 0;
    check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    int first = mine.failed() ? me : INT_MAX;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (first == INT_MAX) return;
    long long head[2] = {static_cast<long long>(mine.code),
                         static_cast<long long>(mine.message.size())};
    check_mpi(MPI_Bcast(head, 2, MPI_LONG_LONG, first, comm), "MPI_Bcast");
    std::string msg =
        me == first ? mine.message : std::string(static_cast<std::size_t>(head[1]), ' ');
    check_mpi(MPI_Bcast(msg.data(), static_cast<int>(head[1]), MPI_CHAR, first, comm), "MPI_Bcast");
    core::fail(static_cast<core::Errc>(head[0]), "rank " + std::to_string(first) + ": " + msg);
}

MPI_Comm library_dup(MPI_Comm comm) {
    MPI_Comm dup = MPI_COMM_NULL;
    check_mpi(MPI_Comm_dup(comm, &dup), "MPI_Comm_dup");
    count_handle(+1);
    const int rc = MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
        free_comm(dup);
        check_mpi(rc, "MPI_Comm_set_errhandler");
    }
    return dup;
}

} // namespace dri::detail
