#include "mpi/runtime/handles.hpp"

#include <atomic>
#include <mutex>
#include <vector>

namespace dri::detail {

namespace {
std::atomic<long> handles{0};
std::mutex mutex;
std::vector<MPI_Comm>& retired() {
    static std::vector<MPI_Comm> v;
    return v;
}
} // namespace

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

void free_retired_comms() noexcept {
    std::vector<MPI_Comm> comms;
    {
        std::lock_guard<std::mutex> lock(mutex);
        comms.swap(retired());
    }
    for (MPI_Comm& c : comms)
        free_comm(c);
}

} // namespace dri::detail
