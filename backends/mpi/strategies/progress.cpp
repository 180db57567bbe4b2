#include "mpi/strategies/progress.hpp"

#include "mpi/runtime/handles.hpp"

#include <atomic>
#include <thread>

namespace dri::detail {

namespace {

std::mutex registry_mutex;
Progressable* head = nullptr;
std::atomic<int> listed{0};

} // namespace

void Progressable::list_in_flight() {
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (listed_) return;
    next_ = head;
    prev_ = nullptr;
    if (head) head->prev_ = this;
    head = this;
    listed_ = true;
    listed.fetch_add(1, std::memory_order_relaxed);
}

void Progressable::unlist() noexcept {
    std::lock_guard<std::mutex> lock(registry_mutex);
    unlink();
}

void Progressable::unlink() noexcept {
    if (!listed_) return;
    if (prev_)
        prev_->next_ = next_;
    else
        head = next_;
    if (next_) next_->prev_ = prev_;
    prev_ = next_ = nullptr;
    listed_ = false;
    listed.fetch_sub(1, std::memory_order_relaxed);
}

void Progressable::rethrow_deferred() {
    if (!deferred_) return;
    std::exception_ptr e = deferred_;
    deferred_ = nullptr;
    std::rethrow_exception(e);
}

int others_in_flight(const Progressable* self) noexcept {
    return listed.load(std::memory_order_relaxed) - (self && self->listed_ ? 1 : 0);
}

void progress_others(const Progressable* self) {
    if (others_in_flight(self) <= 0) return;
    std::lock_guard<std::mutex> lock(registry_mutex);
    for (Progressable *p = head, *next = nullptr; p; p = next) {
        next = p->next_;
        if (p == self) continue;
        std::unique_lock<std::mutex> own(p->mutex_, std::try_to_lock);
        if (!own.owns_lock()) continue; // its own thread is progressing it
        // An error belongs to the transfer it happened in: its next call
        // reports it (and abandons it), not this one.
        bool done = true;
        try {
            done = p->progress_once();
        } catch (...) {
            p->deferred_ = std::current_exception();
        }
        if (done) p->unlink(); // its own wait or test finds nothing pending
    }
}

int wait_any_progressing(int n, MPI_Request* reqs, const Progressable* self) {
    for (int idle = 0;; ++idle) {
        int index = MPI_UNDEFINED;
        if (others_in_flight(self) <= 0) {
            check_mpi(MPI_Waitany(n, reqs, &index, MPI_STATUS_IGNORE), "MPI_Waitany");
            return index;
        }
        int flag = 0;
        check_mpi(MPI_Testany(n, reqs, &index, &flag, MPI_STATUS_IGNORE), "MPI_Testany");
        if (flag) return index; // MPI_UNDEFINED too: nothing active
        progress_others(self);
        if (idle % 16 == 15) std::this_thread::yield(); // ranks may outnumber cores
    }
}

} // namespace dri::detail
