// Executors that only a call of dri on their own process can move along
// (the single copy copies, the leaders of NODES relay): listed in the
// progress registry from start until complete, so that any completion call
// on the process progresses them (progress.hpp), their state guarded by
// their own mutex.
#pragma once

#include "mpi/strategies/base.hpp"
#include "mpi/strategies/progress.hpp"

#include <mutex>

namespace dri::detail {

class ListedExecutor : public RequestExecutor, public Progressable {
  public:
    void start(const std::byte* send, std::byte* recv) final {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            post(send, recv);
        }
        list_in_flight();
    }

    void wait() final {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            rethrow_deferred();
            wait_requests(this);
        }
        unlist();
    }

    bool test() final {
        bool done = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            rethrow_deferred();
            done = test_requests();
        }
        if (done) unlist();
        return done;
    }

    void drop_pending() noexcept final {
        unlist();
        std::lock_guard<std::mutex> lock(mutex_);
        for (std::size_t i = 0; i < reqs_.size(); ++i)
            drop(reqs_[i], is_recv(i));
        pending_ = 0;
    }

  protected:
    using RequestExecutor::RequestExecutor;
    // Starts one reorganization (the mutex held): posts the requests.
    virtual void post(const std::byte* send, std::byte* recv) = 0;
    // Whether request slot i is a receive (cancelled when dropped).
    virtual bool is_recv(std::size_t i) const = 0;

  private:
    bool progress_once() final { return test_requests(); }
};

} // namespace dri::detail
