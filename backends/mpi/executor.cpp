#include "executor.hpp"

#include "copy.hpp"
#include "runtime.hpp"

namespace dri::detail {

namespace {

// Applies the process's own part: zero fills of edge padding, then the
// regions it moves from its send buffer to its receive buffer.
void run_local(const core::LocalPlan& plan, const std::byte* send, std::byte* recv) {
    for (const core::Region& f : plan.fills)
        core::zero_region(recv, f, plan.elem_size);
    for (const core::Region& r : plan.self)
        core::copy_region(send, recv, r, plan.elem_size);
}

class AlltoallwExecutor final : public Executor {
  public:
    AlltoallwExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx) : comm_(ctx.comm) {
        try {
            build(plan, ctx);
        } catch (...) {
            release(); // the communicator is ours even when building fails
            throw;
        }
    }

    void build(const core::LocalPlan& plan, const ExecutorContext& ctx) {
        local_.elem_size = plan.elem_size;
        local_.self = plan.self;
        local_.fills = plan.fills;
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
        for (const core::PeerRegions& p : plan.recvs) {
            const auto rank =
                static_cast<std::size_t>(ctx.send_rank.at(static_cast<std::size_t>(p.peer)));
            owned_.push_back(regions_datatype(p.regions, SideOf::receiver, plan.elem_size));
            rtypes_[rank] = owned_.back().get();
            rcounts_[rank] = 1;
        }
    }

    ~AlltoallwExecutor() override { release(); }

    void run(const std::byte* send, std::byte* recv) override {
        run_local(local_, send, recv);
        check_mpi(MPI_Alltoallw(send ? send : &dummy_, scounts_.data(), sdispls_.data(),
                                stypes_.data(), recv ? recv : &dummy_, rcounts_.data(),
                                rdispls_.data(), rtypes_.data(), comm_),
                  "MPI_Alltoallw");
    }

    void start(const std::byte* send, std::byte* recv) override {
        check_mpi(MPI_Ialltoallw(send ? send : &dummy_, scounts_.data(), sdispls_.data(),
                                 stypes_.data(), recv ? recv : &dummy_, rcounts_.data(),
                                 rdispls_.data(), rtypes_.data(), comm_, &req_),
                  "MPI_Ialltoallw");
        // The local part overlaps the messages in flight.
        run_local(local_, send, recv);
    }

    void wait() override { check_mpi(MPI_Wait(&req_, MPI_STATUS_IGNORE), "MPI_Wait"); }

    bool test() override {
        int done = 0;
        check_mpi(MPI_Test(&req_, &done, MPI_STATUS_IGNORE), "MPI_Test");
        return done != 0;
    }

    void release() noexcept override {
        if (req_ != MPI_REQUEST_NULL && mpi_alive()) MPI_Wait(&req_, MPI_STATUS_IGNORE);
        req_ = MPI_REQUEST_NULL;
        owned_.clear();
        free_comm(comm_);
    }

  private:
    MPI_Comm comm_;
    MPI_Request req_ = MPI_REQUEST_NULL;
    core::LocalPlan local_;
    std::vector<int> scounts_, rcounts_, sdispls_, rdispls_;
    std::vector<MPI_Datatype> stypes_, rtypes_;
    std::vector<Datatype> owned_;
    std::byte dummy_{};
};

} // namespace

std::unique_ptr<Executor> make_alltoallw_executor(const core::LocalPlan& plan,
                                                  ExecutorContext ctx) {
    return std::make_unique<AlltoallwExecutor>(plan, ctx);
}

} // namespace dri::detail
