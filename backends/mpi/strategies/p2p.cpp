// P2P: all receives posted first, each peer's side sent straight, as a
// datatype or packed (route_of, messages.hpp) and at once, the self part
// copied while messages fly, each packed message unpacked as it arrives.
//
// With pieces (core/pieces.hpp) a pair travels as one message per sender
// piece, tagged with the piece: a split send role sends piece k's messages
// and copies its self part when piece k is marked ready, from the marking
// thread; a receive piece has arrived once every message and self part
// landing in it has (counted down per piece as they complete).
#include "mpi/datatype.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/messages.hpp"
#include "mpi/strategies/parts.hpp"
#include "mpi/strategies/piece_arrivals.hpp"
#include "mpi/strategies/scratch.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

namespace dri::detail {

namespace {

class P2PExecutor final : public RequestExecutor {
  public:
    P2PExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx) : RequestExecutor(ctx) {
        construct(plan, [&] { build(plan, ctx); });
    }
    ~P2PExecutor() override { release(); }

    void start(const std::byte* send, std::byte* recv) override {
        send_ = send;
        recv_target_ = recv;
        arrivals_.reset();
        // Direct and datatype messages sit in the user's buffer (a datatype
        // carries its own offsets: m.offset is 0), packed ones in scratch.
        std::size_t k = 0;
        for (const Msg& m : recvs_) {
            std::byte* at = (m.route == Route::packed ? rbuf_.get() : recv) + m.offset;
            check_mpi(recv_bytes(at, m.bytes, m.type, m.rank, comm_, &reqs_[k++], m.piece),
                      "MPI_Irecv");
        }
        if (!send_split_) {
            for (std::size_t i = 0; i < sends_.size(); ++i)
                send_one(i);
            run_local(send, recv);
            for (const core::LocalPlan::SelfPiece& g : self_pieces_)
                arrivals_.landed(g.lands);
        } else {
            run_fills(fills_only_, recv);
        }
        pending_ = static_cast<int>(recvs_.size() + (send_split_ ? 0 : sends_.size()));
    }

    // One reorganization in one call (DRI_Do, MEASURE's timed runs): a split
    // send role's pieces are all ready at once.
    void run(const std::byte* send, std::byte* recv) override {
        start(send, recv);
        if (send_split_)
            for (std::size_t k = 0; k < piece_sends_.size(); ++k)
                piece_ready(static_cast<int>(k));
        wait();
    }

    // The transfer has checked that every piece was marked, after each
    // marking returned: every send is posted.
    void wait() override {
        std::lock_guard<std::mutex> lock(recv_mutex_);
        count_pending();
        wait_requests(nullptr);
    }
    bool test() override {
        std::lock_guard<std::mutex> lock(recv_mutex_);
        count_pending();
        return test_requests();
    }

    bool moves_pieces() const override { return true; }

    void piece_ready(int k) override {
        for (std::size_t i : piece_sends_[static_cast<std::size_t>(k)])
            send_one(i);
        run_self_piece(self_pieces_, k, local_.self, arrival_, send_, recv_target_, arrivals_,
                       self_whole_);
    }

    bool piece_arrived(int k, bool block) override {
        for (;;) {
            {
                std::lock_guard<std::mutex> lock(recv_mutex_);
                if (arrivals_.arrived(k)) return true;
                if (receive_some(block && receives_active())) continue;
            }
            if (arrivals_.arrived(k)) return true;
            if (!block) return false;
            // Only this process's own send pieces are missing: another
            // thread marks them.
            std::this_thread::yield();
        }
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
        sbuf_ = Scratch(ctx.arena, soff, send_scratch_pages(mpi_library()));
        rbuf_ = Scratch(ctx.arena, roff);
        reqs_.assign(recvs_.size() + sends_.size(), MPI_REQUEST_NULL);
        done_.assign(reqs_.size(), 0);
        build_pieces(plan);
    }

    // Which messages each send piece sends, and how many messages and self
    // parts land in each receive piece.
    void build_pieces(const core::LocalPlan& plan) {
        send_split_ = plan.send_split;
        self_pieces_ = plan.self_pieces;
        self_whole_ = self_whole(plan);
        for (std::vector<Msg>* msgs : {&sends_, &recvs_})
            set_pair_bytes(
                *msgs, [](const Msg& m) { return m.bytes; },
                [](Msg& m) -> core::Index& { return m.pair_bytes; });
        // The fills as construct() prepared them (a combined fill reads one zero).
        fills_only_.elem_size = local_.elem_size;
        fills_only_.fills = local_.fills;
        piece_sends_.resize(static_cast<std::size_t>(plan.send_pieces));
        for (std::size_t i = 0; i < sends_.size(); ++i)
            piece_sends_.at(static_cast<std::size_t>(sends_[i].piece)).push_back(i);
        arrivals_.build(plan.recv_pieces);
        for (const Msg& m : recvs_)
            arrivals_.count(m.lands);
        for (const core::LocalPlan::SelfPiece& g : self_pieces_)
            arrivals_.count(g.lands);
        arrivals_.reset();
    }

    void send_one(std::size_t i) {
        const Msg& m = sends_[i];
        const std::byte* at = send_ + m.offset;
        if (m.route == Route::packed) {
            pack_all(send_, m.regions, elem_size(), sbuf_.get() + m.offset, m.pair_bytes);
            at = sbuf_.get() + m.offset;
        }
        check_mpi(
            send_bytes(at, m.bytes, m.type, m.rank, comm_, &reqs_[recvs_.size() + i], m.piece),
            "MPI_Isend");
    }

    // The receive mutex held: completes the receives that have arrived (or
    // waits for one, with `block`); false when none completed.
    bool receive_some(bool block) {
        const int n = static_cast<int>(recvs_.size());
        if (block) {
            const int index = wait_any_progressing(n, reqs_.data(), nullptr);
            if (index == MPI_UNDEFINED) return false;
            arrived(index);
            return true;
        }
        int count = 0;
        check_mpi(MPI_Testsome(n, reqs_.data(), &count, done_.data(), MPI_STATUSES_IGNORE),
                  "MPI_Testsome");
        for (int i = 0; i < count; ++i)
            arrived(done_[static_cast<std::size_t>(i)]);
        return count > 0 && count != MPI_UNDEFINED;
    }

    bool receives_active() const {
        for (std::size_t i = 0; i < recvs_.size(); ++i)
            if (reqs_[i] != MPI_REQUEST_NULL) return true;
        return false;
    }

    // Requests still active (completed ones are MPI_REQUEST_NULL): receives
    // may have completed in piece_arrived, sends were posted by the markings.
    void count_pending() {
        pending_ = static_cast<int>(std::count_if(
            reqs_.begin(), reqs_.end(), [](MPI_Request r) { return r != MPI_REQUEST_NULL; }));
    }

    void arrived(int index) override {
        --pending_;
        if (static_cast<std::size_t>(index) >= recvs_.size()) return; // a send completed
        const Msg& m = recvs_[static_cast<std::size_t>(index)];
        if (m.route == Route::packed)
            arrival_.unpack(rbuf_.get() + m.offset, m.regions, recv_target_, m.pair_bytes);
        arrivals_.landed(m.lands);
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
    const std::byte* send_ = nullptr;
    std::byte* recv_target_ = nullptr;
    // Pieces: whether the send role is split (else start sends everything),
    // the send slots of each send piece, the self part by send piece, and
    // what lands in each receive piece.
    bool send_split_ = false;
    std::vector<std::vector<std::size_t>> piece_sends_;
    std::vector<core::LocalPlan::SelfPiece> self_pieces_;
    core::LocalPlan fills_only_; // the local part without its self regions
    core::Index self_whole_ = 0; // the self part's bytes, when in pieces
    PieceArrivals arrivals_;
    // Receives complete under it: a consumer's threads may ask for pieces
    // at once, and the whole-frame wait or test with them.
    std::mutex recv_mutex_;
};

} // namespace

std::unique_ptr<Executor> make_p2p(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    return std::make_unique<P2PExecutor>(plan, ctx);
}

Built build_p2p(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    return {make_p2p(plan, ctx), {}};
}

} // namespace dri::detail
