// The progress rule of the single copy: a reader copies a sender's regions
// when the sender's ready message has arrived, and only a call of dri on the
// reader's process can do that. So every completion call (wait, test,
// DRI_Do, destroy, DRI_Finalize) progresses every single-copy executor in
// flight on its process, whichever transfer it was called on: any order of
// completion calls on any rank completes (MPI's rule for its own
// non-blocking operations).
//
// The registry is an intrusive list (DRI_Do never allocates); an executor
// is listed from its start until its own wait or test completes it (or it
// is released or abandoned). Under MPI_THREAD_MULTIPLE, an executor's state
// is guarded by its own mutex; a call progressing others skips one that
// another thread holds (that thread is progressing it).
#pragma once

#include <mpi.h>

#include <atomic>
#include <exception>
#include <mutex>

namespace dri::detail {

class Progressable {
  public:
    Progressable() = default;
    Progressable(const Progressable&) = delete;
    Progressable& operator=(const Progressable&) = delete;
    virtual ~Progressable() = default;

  protected:
    // One non-blocking pass over the executor's requests (its mutex held by
    // the caller); true once nothing is pending.
    virtual bool progress_once() = 0;

    // Listed while in flight; both are called by the executor's own calls.
    void list_in_flight();
    void unlist() noexcept;
    // An error another call met while progressing this executor, thrown by
    // this executor's own next call (its mutex held).
    void rethrow_deferred();

    std::mutex mutex_;

  private:
    friend void progress_others(const Progressable* self);
    friend int others_in_flight(const Progressable* self) noexcept;
    void unlink() noexcept; // the registry's mutex held
    Progressable* prev_ = nullptr;
    Progressable* next_ = nullptr;
    std::atomic<bool> listed_{false};
    std::exception_ptr deferred_;
};

// Progresses every listed executor but `self` (null: every one).
void progress_others(const Progressable* self);

// How many executors other than `self` are listed.
int others_in_flight(const Progressable* self) noexcept;

// MPI_Waitany over reqs that progresses the single copies in flight on this
// process (other than `self`) while it waits; the index completed, or
// MPI_UNDEFINED when no request is active. Blocks in MPI_Waitany while
// nothing else is in flight.
int wait_any_progressing(int n, MPI_Request* reqs, const Progressable* self);

} // namespace dri::detail
