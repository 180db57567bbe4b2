// An executor made of two others over disjoint pairs of one plan (HYBRID:
// the single copy and messages; NODES: the relay between nodes and messages
// within them). Both start at once; the first is waited for first.
#include "mpi/strategies/parts.hpp"

namespace dri::detail {

namespace {

class TwoPartsExecutor final : public Executor {
  public:
    TwoPartsExecutor(std::unique_ptr<Executor> first, std::unique_ptr<Executor> second)
        : first_(std::move(first)), second_(std::move(second)) {}
    ~TwoPartsExecutor() override { release(); }

    void run(const std::byte* send, std::byte* recv) override {
        start(send, recv);
        wait();
    }
    void start(const std::byte* send, std::byte* recv) override {
        first_->start(send, recv);
        second_->start(send, recv);
    }
    void wait() override {
        first_->wait();
        second_->wait();
    }
    bool test() override {
        const bool first = first_->test();
        const bool second = second_->test();
        return first && second;
    }
    void release() noexcept override {
        first_->release();
        second_->release();
    }
    void abandon() noexcept override {
        first_->abandon();
        second_->abandon();
    }

  private:
    std::unique_ptr<Executor> first_, second_;
};

} // namespace

std::unique_ptr<Executor> make_two_parts(std::unique_ptr<Executor> first,
                                         std::unique_ptr<Executor> second) {
    return std::make_unique<TwoPartsExecutor>(std::move(first), std::move(second));
}

} // namespace dri::detail
