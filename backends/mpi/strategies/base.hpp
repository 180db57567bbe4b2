// The two executor bases every strategy builds on: CommExecutor owns the
// transfer's communicator and the process's local part (zero fills, self
// copy); RequestExecutor completes point-to-point requests in any order.
#pragma once

#include "mpi/runtime/handles.hpp"
#include "mpi/strategies/executor.hpp"
#include "mpi/strategies/progress.hpp"

#include <vector>

namespace dri::detail {

// Owns an executor's communicator until the executor takes it: a factory
// that declines (the strategy does not apply) or fails before building the
// executor frees it.
class CommUntilTaken {
  public:
    explicit CommUntilTaken(MPI_Comm c) : c_(c) {}
    ~CommUntilTaken() { free_comm(c_); }
    CommUntilTaken(const CommUntilTaken&) = delete;
    CommUntilTaken& operator=(const CommUntilTaken&) = delete;
    void take() { c_ = MPI_COMM_NULL; }

  private:
    MPI_Comm c_;
};

// How this process's receive buffer takes the elements that reach it:
// stored (REPLACE), or combined into its cells with a SUM, MAX or MIN
// (DRI_Transfer_set_combine). Every cell a plan writes is written once per
// reorganization, so the order of arrivals cannot change a combined result.
struct Arrival {
    core::CombineOp op = core::CombineOp::replace;
    core::ElementType type;
    // One zero element: what a zero fill delivers, combined like any other
    // arriving value (so MAX keeps max(cell, 0)).
    std::vector<std::byte> zero;

    Arrival() = default;
    explicit Arrival(const ExecutorContext& ctx);
    bool combines() const { return op != core::CombineOp::replace; }
    // One region from src (its sender side) into dst (its receiver side).
    // `whole`: as for core::strided_copy, the bytes of the copy this is a
    // piece of (0: the region alone).
    void region(const std::byte* src, std::byte* dst, const core::Region& r,
                core::Index whole = 0) const;
    // A packed stream of `regs` (pack_all's) into dst.
    void unpack(const std::byte* in, const std::vector<core::Region>& regs, std::byte* dst,
                core::Index whole = 0) const;
};

// Applies the process's own part: zero fills of edge padding, then the
// regions it moves from its send buffer to its receive buffer, each stored
// or combined as `arrival` says. When combining, the fills' sender side
// must repeat one element (s_off and every s stride 0: see CommExecutor).
void run_local(const core::LocalPlan& plan, const Arrival& arrival, const std::byte* send,
               std::byte* recv);

// Common base: owns the transfer's communicator and the process's local
// part (zero fills and self copy).
class CommExecutor : public Executor {
  public:
    void release() noexcept override {
        release_more();
        free_comm(comm_);
    }
    void run(const std::byte* send, std::byte* recv) override {
        start(send, recv);
        wait();
    }
    // Messages of the abandoned reorganization may still be on their way;
    // the communicator is kept until DRI_Finalize so that its context is
    // never reused by a new communicator they could match.
    void abandon() noexcept final {
        drop_pending();
        retire_comm(comm_);
    }

  protected:
    explicit CommExecutor(MPI_Comm comm) : comm_(comm) {}
    // With the receive buffer's Arrival (the communicator is ours as above).
    explicit CommExecutor(const ExecutorContext& ctx) : comm_(ctx.comm), arrival_(ctx) {}
    // Runs the derived class's construction; on failure frees everything,
    // the communicator included (it is ours from the start).
    template <class F>
    void construct(const core::LocalPlan& plan, F&& build) {
        try {
            local_.elem_size = plan.elem_size;
            local_.self = plan.self;
            local_.fills = plan.fills;
            // Stored elements are the plan's bytes, whatever the context said.
            if (!arrival_.combines() && arrival_.type.size != plan.elem_size)
                arrival_.type = core::ElementType::record(plan.elem_size);
            // A combined fill reads its zero from one element (Arrival::zero).
            if (arrival_.combines())
                for (core::Region& f : local_.fills) {
                    f.s_off = 0;
                    for (core::Axis& a : f.axes)
                        a.s = 0;
                }
            build();
        } catch (...) {
            release();
            throw;
        }
    }
    // Frees what the derived class holds (pending requests, datatypes).
    virtual void release_more() noexcept {}
    // Forgets the requests in flight without waiting (see Executor::abandon).
    virtual void drop_pending() noexcept = 0;

    // Frees one request without waiting: receives are cancelled first.
    static void drop(MPI_Request& r, bool is_recv) noexcept {
        if (r == MPI_REQUEST_NULL) return;
        if (mpi_alive()) {
            if (is_recv) MPI_Cancel(&r);
            MPI_Request_free(&r);
        }
        r = MPI_REQUEST_NULL;
    }

    // Bytes per element (the plan's, kept with the local part).
    core::Index elem_size() const { return local_.elem_size; }

    // The local part, stored or combined as arrival_ says.
    void run_local(const std::byte* send, std::byte* recv) const {
        detail::run_local(local_, arrival_, send, recv);
    }
    // The zero fills alone, from `fills`: a plan that holds local_'s fills
    // and no self region.
    void run_fills(const core::LocalPlan& fills, std::byte* recv) const {
        detail::run_local(fills, arrival_, nullptr, recv);
    }

    MPI_Comm comm_;
    Arrival arrival_;
    core::LocalPlan local_;
};

// Executors driven by point-to-point requests: wait and test complete them
// in any order and hand each completed one to arrived() (which may start
// another and count it in pending_). Waiting progresses the single copies
// in flight on this process (progress.hpp).
class RequestExecutor : public CommExecutor {
  public:
    void wait() override { wait_requests(nullptr); }
    bool test() override { return test_requests(); }

  protected:
    using CommExecutor::CommExecutor;
    virtual void arrived(int index) = 0;
    // `self`: the executor that is waiting, when it is itself listed.
    void wait_requests(const Progressable* self);
    bool test_requests();

    std::vector<MPI_Request> reqs_;
    std::vector<int> done_; // indices from MPI_Testsome
    int pending_ = 0;       // requests started and not yet completed
};

} // namespace dri::detail
