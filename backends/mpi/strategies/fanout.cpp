#include "mpi/strategies/fanout.hpp"

#include <algorithm>

namespace dri::detail {

namespace {

// Every pair is started before any is waited for: the pairs move the same
// send buffer to different processes, and each completes on its own.
class FanoutExecutor final : public Executor {
  public:
    explicit FanoutExecutor(std::vector<PairExecutor> pairs)
        : pairs_(std::move(pairs)), done_(pairs_.size(), false) {}
    ~FanoutExecutor() override { release(); }

    void run(const std::byte* send, std::byte* recv) override {
        start(send, recv);
        wait();
    }
    void start(const std::byte* send, std::byte* recv) override {
        for (std::size_t i = 0; i < pairs_.size(); ++i) {
            done_[i] = false;
            pairs_[i].exec->start(send, pairs_[i].receives ? recv : nullptr);
        }
    }
    void wait() override {
        for (std::size_t i = 0; i < pairs_.size(); ++i)
            if (!done_[i]) pairs_[i].exec->wait();
        std::fill(done_.begin(), done_.end(), true);
    }
    bool test() override {
        bool all = true;
        for (std::size_t i = 0; i < pairs_.size(); ++i) {
            if (!done_[i]) done_[i] = pairs_[i].exec->test();
            all = all && done_[i];
        }
        return all;
    }
    void release() noexcept override {
        for (PairExecutor& p : pairs_)
            if (p.exec) p.exec->release();
    }
    void abandon() noexcept override {
        for (PairExecutor& p : pairs_)
            p.exec->abandon();
    }

  private:
    std::vector<PairExecutor> pairs_;
    std::vector<bool> done_;
};

} // namespace

std::unique_ptr<Executor> make_fanout(std::vector<PairExecutor> pairs) {
    if (pairs.size() == 1) return std::move(pairs.front().exec);
    return std::make_unique<FanoutExecutor>(std::move(pairs));
}

} // namespace dri::detail
