// ALLTOALLW: one MPI_Ialltoallw with one committed
// derived datatype per peer and side; the self part and zero fills are local
// copies. A receiver that combines what arrives (DRI_Transfer_set_combine)
// receives each peer's bytes into scratch instead, and combines them from
// there once the collective completes.
#include "mpi/datatype.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/messages.hpp"
#include "mpi/strategies/scratch.hpp"

#include <algorithm>

namespace dri::detail {

namespace {

class AlltoallwExecutor final : public CommExecutor {
  public:
    AlltoallwExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx) : CommExecutor(ctx) {
        construct(plan, [&] { build(plan, ctx); });
    }

    void build(const core::LocalPlan& plan, const ExecutorContext& ctx) {
        int n = 0;
        check_mpi(MPI_Comm_size(comm_, &n), "MPI_Comm_size");
        const auto un = static_cast<std::size_t>(n);
        scounts_.assign(un, 0);
        rcounts_.assign(un, 0);
        sdispls_.assign(un, 0);
        rdispls_.assign(un, 0);
        stypes_.assign(un, MPI_BYTE);
        rtypes_.assign(un, MPI_BYTE);
        for (const core::PeerRegions& p : plan.sends) {
            const auto rank =
                static_cast<std::size_t>(ctx.recv_rank.at(static_cast<std::size_t>(p.peer)));
            owned_.push_back(regions_datatype(p.regions, SideOf::sender, plan.elem_size));
            stypes_[rank] = owned_.back().get();
            scounts_[rank] = 1;
        }
        core::Index scratch = 0;
        for (const core::PeerRegions& p : plan.recvs) {
            const auto rank =
                static_cast<std::size_t>(ctx.send_rank.at(static_cast<std::size_t>(p.peer)));
            if (arrival_.combines()) {
                const core::Index bytes = total_bytes(p.regions, plan.elem_size);
                owned_.push_back(byte_range_datatype(scratch, bytes));
                combined_.push_back({scratch, p.regions});
                scratch = core::checked_add(scratch, bytes, "scratch size");
            } else {
                owned_.push_back(regions_datatype(p.regions, SideOf::receiver, plan.elem_size));
            }
            rtypes_[rank] = owned_.back().get();
            rcounts_[rank] = 1;
        }
        rbuf_ = Scratch(ctx.arena, scratch);
    }

    ~AlltoallwExecutor() override { release(); }

    // run() is start() then wait(), the non-blocking collective: one
    // process's DRI_Do must match another's DRI_Do_start (a fan-out
    // producer starts all its pairs before waiting), and a blocking
    // MPI_Alltoallw never matches an MPI_Ialltoallw.
    void start(const std::byte* send, std::byte* recv) override {
        std::byte* into = arrival_.combines() && rbuf_.get() ? rbuf_.get() : recv;
        recv_target_ = recv;
        check_mpi(MPI_Ialltoallw(send ? send : &dummy_, scounts_.data(), sdispls_.data(),
                                 stypes_.data(), into ? into : &dummy_, rcounts_.data(),
                                 rdispls_.data(), rtypes_.data(), comm_, &req_),
                  "MPI_Ialltoallw");
        // The local part overlaps the messages in flight.
        run_local(send, recv);
    }

    // Progresses the single copies in flight here while it waits.
    void wait() override {
        wait_any_progressing(1, &req_, nullptr);
        finish();
    }

    bool test() override {
        int done = 0;
        check_mpi(MPI_Test(&req_, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) finish();
        return done != 0;
    }

    // A nonblocking collective cannot be cancelled, and freeing it while
    // active is erroneous: the handle is forgotten instead (after an MPI
    // error, a leaked request beats a hang).
    void drop_pending() noexcept override { req_ = MPI_REQUEST_NULL; }

  private:
    // A peer's bytes in scratch, combined into its regions once arrived.
    struct Combined {
        core::Index offset = 0;
        std::vector<core::Region> regions;
    };

    void finish() {
        for (const Combined& c : combined_)
            arrival_.unpack(rbuf_.get() + c.offset, c.regions, recv_target_);
    }

    void release_more() noexcept override {
        if (req_ != MPI_REQUEST_NULL && mpi_alive()) MPI_Wait(&req_, MPI_STATUS_IGNORE);
        req_ = MPI_REQUEST_NULL;
        owned_.clear();
    }

    MPI_Request req_ = MPI_REQUEST_NULL;
    std::vector<int> scounts_, rcounts_, sdispls_, rdispls_;
    std::vector<MPI_Datatype> stypes_, rtypes_;
    std::vector<Datatype> owned_;
    std::vector<Combined> combined_; // when combining: every peer received
    Scratch rbuf_;
    std::byte* recv_target_ = nullptr;
    std::byte dummy_{};
};

} // namespace

Built build_alltoallw(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    return {std::make_unique<AlltoallwExecutor>(plan, ctx), {}};
}

} // namespace dri::detail
