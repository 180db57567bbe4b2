// P2P: all receives posted first, each peer's side sent straight, as a
// datatype or packed (route_of, messages.hpp) and at once, the self part
// copied while messages fly, each packed message unpacked as it arrives.
#include "mpi/datatype.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/messages.hpp"
#include "mpi/strategies/parts.hpp"
#include "mpi/strategies/scratch.hpp"

#include <algorithm>

namespace dri::detail {

namespace {

class P2PExecutor final : public RequestExecutor {
  public:
    P2PExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx) : RequestExecutor(ctx) {
        construct(plan, [&] { build(plan, ctx); });
    }
    ~P2PExecutor() override { release(); }

    void start(const std::byte* send, std::byte* recv) override {
        recv_target_ = recv;
        // Direct and datatype messages sit in the user's buffer (a datatype
        // carries its own offsets: m.offset is 0), packed ones in scratch.
        std::size_t k = 0;
        for (const Msg& m : recvs_) {
            std::byte* at = (m.route == Route::packed ? rbuf_.get() : recv) + m.offset;
            check_mpi(recv_bytes(at, m.bytes, m.type, m.rank, comm_, &reqs_[k++]), "MPI_Irecv");
        }
        for (const Msg& m : sends_) {
            const std::byte* at = send + m.offset;
            if (m.route == Route::packed) {
                pack_all(send, m.regions, elem_size(), sbuf_.get() + m.offset);
                at = sbuf_.get() + m.offset;
            }
            check_mpi(send_bytes(at, m.bytes, m.type, m.rank, comm_, &reqs_[k++]), "MPI_Isend");
        }
        run_local(send, recv);
        pending_ = static_cast<int>(reqs_.size());
    }

    void drop_pending() noexcept override {
        for (std::size_t i = 0; i < reqs_.size(); ++i)
            drop(reqs_[i], i < recvs_.size());
        pending_ = 0;
    }

  private:
    using Msg = Message;

    void build(const core::LocalPlan& plan, const ExecutorContext& ctx) {
        int me = 0;
        check_mpi(MPI_Comm_rank(comm_, &me), "MPI_Comm_rank");
        core::Index soff = 0, roff = 0;
        auto add = [&](const core::PeerRegions& p, bool is_send, core::Index& scratch) {
            const int rank = is_send ? ctx.recv_rank.at(static_cast<std::size_t>(p.peer))
                                     : ctx.send_rank.at(static_cast<std::size_t>(p.peer));
            // Combined arrivals cannot land in the user's buffer: such a
            // message is received into scratch and combined from there. A
            // process that combines routes its sends the same way (its
            // peers combine too, as far as it can know).
            return plan_message(p, rank, elem_size(), is_send, scratch, arrival_.combines());
        };
        for (const core::PeerRegions& p : plan.recvs)
            recvs_.push_back(add(p, false, roff));
        for (const core::PeerRegions& p : plan.sends)
            sends_.push_back(add(p, true, soff));
        // Send to the next ranks first, so that not everyone targets rank 0 at once.
        std::stable_sort(sends_.begin(), sends_.end(), [&](const Msg& a, const Msg& b) {
            return (a.rank - me + (1 << 30)) % (1 << 30) < (b.rank - me + (1 << 30)) % (1 << 30);
        });
        sbuf_ = Scratch(soff, send_scratch_pages(mpi_library()));
        rbuf_ = Scratch(roff);
        reqs_.assign(recvs_.size() + sends_.size(), MPI_REQUEST_NULL);
        done_.assign(reqs_.size(), 0);
    }

    void arrived(int index) override {
        --pending_;
        if (static_cast<std::size_t>(index) >= recvs_.size()) return; // a send completed
        const Msg& m = recvs_[static_cast<std::size_t>(index)];
        if (m.route == Route::packed)
            arrival_.unpack(rbuf_.get() + m.offset, m.regions, recv_target_);
    }

    void release_more() noexcept override {
        if (mpi_alive())
            for (MPI_Request& r : reqs_)
                if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (Msg& m : sends_)
            m.type.reset();
        for (Msg& m : recvs_)
            m.type.reset();
    }

    std::vector<Msg> sends_, recvs_;
    Scratch sbuf_, rbuf_;
    std::byte* recv_target_ = nullptr;
};

} // namespace

std::unique_ptr<Executor> make_p2p(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    return std::make_unique<P2PExecutor>(plan, ctx);
}

Built build_p2p(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    return {make_p2p(plan, ctx), {}};
}

} // namespace dri::detail
