// SHARED: single copy through node shared memory. Every receiver copies its
// regions straight from its senders' buffers (allocated by DRI_Alloc_mem)
// into its own after a ready message, and answers with a done message; no
// scratch, no bytes through MPI. It applies when every sender with readers
// has its ring in DRI shared memory that each of its readers could map.
// The messages order the accesses: a sender writes its buffer before its
// ready message leaves, a reader copies after it arrives, and the sender
// writes the buffer again only after every done message arrived. Completing
// a message is a synchronization in the MPI library (its shared-memory
// transport publishes a message with release semantics and takes it with
// acquire), and the compiler cannot move accesses across the opaque MPI
// calls, so no fence of our own is needed (GCC refuses fences under
// ThreadSanitizer).
//
// With pieces (core/pieces.hpp) a pair's regions come in groups, one per
// sender piece: a split sender sends the ready message of a group when its
// piece is marked ready, tagged with the piece, and its reader copies that
// group alone when it arrives; the done messages are counted, one per group.
#include "kernels/copy.hpp"
#include "mpi/runtime/collectives.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/listed_executor.hpp"
#include "mpi/strategies/parts.hpp"
#include "mpi/strategies/piece_arrivals.hpp"

#include <algorithm>
#include <thread>

namespace dri::detail {

namespace {

// Listed: any completion call on this process copies for it.
class SharedExecutor final : public ListedExecutor {
  public:
    // The pairs of `plan` that `reach` marks for the single copy (every pair
    // for SHARED, some for HYBRID); with `local`, also the self part and the
    // zero fills.
    SharedExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx,
                   const SharedReach& reach, bool local)
        : ListedExecutor(ctx) {
        construct(local_part(plan, local), [&] { build(plan, ctx, reach); });
    }
    ~SharedExecutor() override { release(); }

    // One reorganization in one call (DRI_Do, MEASURE's timed runs): a split
    // send role's pieces are all ready at once.
    void run(const std::byte* send, std::byte* recv) override {
        start(send, recv);
        for (int k = 0; send_split_ && k < send_pieces_; ++k)
            piece_ready(k);
        wait();
    }

    bool moves_pieces() const override { return true; }

    void piece_ready(int k) override {
        std::lock_guard<std::mutex> lock(mutex_);
        const std::size_t ns = sources_.size(), nr = readers_.size();
        for (std::size_t i = 0; i < nr; ++i)
            if (readers_[i].piece == k) send_ready(i, ns + nr + i);
        run_self_piece(self_pieces_, k, local_.self, arrival_, send_, recv_target_, arrivals_,
                       self_whole_);
    }

    // Polls: another thread may have to mark one of this process's own
    // send pieces first, and the progress rule must keep going meanwhile.
    bool piece_arrived(int k, bool block) override {
        for (int idle = 0;; ++idle) {
            {
                std::lock_guard<std::mutex> lock(mutex_);
                rethrow_deferred();
                if (arrivals_.arrived(k)) return true;
                test_requests();
                if (arrivals_.arrived(k)) return true;
            }
            if (!block) return false;
            progress_others(this);
            if (idle % 16 == 15) std::this_thread::yield();
        }
    }

  private:
    // A piece's ready messages carry its number in their tag.
    static constexpr int done_tag = 2, first_ready_tag = 16;

    // The ready and done receives come first (the slots: see arrived).
    bool is_recv(std::size_t i) const override { return i < sources_.size() + readers_.size(); }

    void post(const std::byte* send, std::byte* recv) override {
        send_ = send;
        recv_target_ = recv;
        arrivals_.reset();
        const std::size_t ns = sources_.size(), nr = readers_.size();
        std::size_t k = 0;
        for (Source& src : sources_)
            check_mpi(MPI_Irecv(&src.ready, 1, MPI_INT, src.rank, first_ready_tag + src.piece,
                                comm_, &reqs_[k++]),
                      "MPI_Irecv");
        if (nr > 0) {
            // Which buffer of the ring is read; published once written.
            mine_ = -1;
            for (std::size_t i = 0; i < own_.size(); ++i)
                if (own_[i].data() == send) mine_ = static_cast<int>(i);
            if (mine_ < 0) core::fail(core::Errc::internal, "send buffer not in the ring");
            for (const Reader& r : readers_)
                check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, r.rank, done_tag, comm_, &reqs_[k++]),
                          "MPI_Irecv");
        }
        pending_ = static_cast<int>(ns + nr);
        if (send_split_) {
            run_fills(fills_only_, recv);
            return;
        }
        for (std::size_t i = 0; i < nr; ++i)
            send_ready(i, ns + nr + i);
        run_local(send, recv);
        for (const core::LocalPlan::SelfPiece& g : self_pieces_)
            arrivals_.landed(g.lands);
    }

    // Tells reader i (request slot `slot`) that its group may be read.
    void send_ready(std::size_t i, std::size_t slot) {
        const Reader& r = readers_[i];
        check_mpi(
            MPI_Isend(&mine_, 1, MPI_INT, r.rank, first_ready_tag + r.piece, comm_, &reqs_[slot]),
            "MPI_Isend");
        ++pending_;
    }

    // A receiver that reads this process's ring: one per group of a pair.
    struct Reader {
        int rank = 0;
        int piece = 0;
    };

    // A sender this process reads from: its ring in this address space.
    struct Source {
        int rank = 0;
        std::vector<core::Region> regions;
        std::vector<const std::byte*> ring;
        std::vector<std::shared_ptr<const RemoteSegment>> segments; // kept mapped
        int ready = -1; // the ring index the sender published
        int piece = 0;  // the sender's piece this group holds
        std::vector<int> lands;
        core::Index bytes = 0, pair_bytes = 0; // its own, and its pair's when in pieces
    };

    void build(const core::LocalPlan& plan, const ExecutorContext& ctx, const SharedReach& reach) {
        own_ = reach.own;
        for (std::size_t i = 0; i < plan.sends.size(); ++i)
            if (reach.reader[i])
                readers_.push_back({ctx.recv_rank.at(static_cast<std::size_t>(plan.sends[i].peer)),
                                    plan.sends[i].piece});
        for (std::size_t i = 0; i < plan.recvs.size(); ++i) {
            if (!reach.source[i]) continue;
            const core::PeerRegions& p = plan.recvs[i];
            Source src;
            src.rank = ctx.send_rank.at(static_cast<std::size_t>(p.peer));
            src.regions = p.regions;
            src.ring = reach.source[i]->bufs;
            src.segments = reach.source[i]->segments;
            src.piece = p.piece;
            src.lands = p.lands;
            src.bytes = p.elements * plan.elem_size;
            sources_.push_back(std::move(src));
        }
        build_pieces(plan);
        reqs_.assign(sources_.size() * 2 + readers_.size() * 2, MPI_REQUEST_NULL);
        done_.assign(reqs_.size(), 0);
    }

    // Request slots: ready receives (one per source), done receives, ready
    // sends (one per reader each), done sends (one per source).
    void arrived(int index) override {
        --pending_;
        const auto i = static_cast<std::size_t>(index);
        if (i >= sources_.size()) return;
        Source& src = sources_[i];
        if (src.ready < 0 || static_cast<std::size_t>(src.ready) >= src.ring.size())
            core::fail(core::Errc::internal, "ready message names no buffer of the ring");
        const auto b = static_cast<std::size_t>(src.ready);
        for (const core::Region& reg : src.regions)
            arrival_.region(src.ring[b], recv_target_, reg, src.pair_bytes);
        arrivals_.landed(src.lands);
        const std::size_t slot = sources_.size() + 2 * readers_.size() + i;
        check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, src.rank, done_tag, comm_, &reqs_[slot]),
                  "MPI_Isend");
        ++pending_;
    }

    void release_more() noexcept override {
        unlist();
        if (mpi_alive())
            for (MPI_Request& r : reqs_)
                if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (Source& src : sources_)
            src.segments.clear();
    }

    // What lands in each receive piece, whether start waits for the send
    // pieces to be marked, the self part by send piece and the fills alone.
    void build_pieces(const core::LocalPlan& plan) {
        send_split_ = plan.send_split;
        send_pieces_ = plan.send_pieces;
        // Without the local part (HYBRID's copies) there is no self part.
        if (!local_.self.empty()) {
            self_pieces_ = plan.self_pieces;
            self_whole_ = self_whole(plan);
        }
        set_pair_bytes(
            sources_, [](const Source& g) { return g.bytes; },
            [](Source& g) -> core::Index& { return g.pair_bytes; });
        fills_only_.elem_size = local_.elem_size;
        fills_only_.fills = local_.fills;
        arrivals_.build(plan.recv_pieces);
        for (const Source& src : sources_)
            arrivals_.count(src.lands);
        for (const core::LocalPlan::SelfPiece& g : self_pieces_)
            arrivals_.count(g.lands);
        arrivals_.reset();
    }

    std::vector<Source> sources_;
    std::vector<Reader> readers_;
    const std::byte* send_ = nullptr;
    bool send_split_ = false;
    int send_pieces_ = 1;
    std::vector<core::LocalPlan::SelfPiece> self_pieces_;
    core::LocalPlan fills_only_;
    core::Index self_whole_ = 0; // the self part's bytes, when in pieces
    PieceArrivals arrivals_;
    std::vector<std::span<std::byte>> own_;
    int mine_ = -1;
    std::byte* recv_target_ = nullptr;
};

// The reason SHARED does not apply, the same on every participant ("" when it does).
std::string shared_why_not(const SharedReach& reach, MPI_Comm comm) {
    std::string why;
    if (!reach.all())
        why = std::find(reach.reader.begin(), reach.reader.end(), false) != reach.reader.end()
                  ? "a sender's buffers are not in DRI shared memory (DRI_Alloc_mem, "
                    "dri::allocator, transfer-owned rings) that every receiver on its node can "
                    "map, or a receiver is on another node"
                  : "a receiver cannot map the buffers of a sender it reads from (not DRI shared "
                    "memory, or the sender is on another node)";
    return agreed(comm, {why.empty() ? core::Errc::success : core::Errc::buffer, why}).message;
}

} // namespace

std::unique_ptr<Executor> make_shared_part(const core::LocalPlan& plan, const ExecutorContext& ctx,
                                           const SharedReach& reach, bool local) {
    return std::make_unique<SharedExecutor>(plan, ctx, reach, local);
}

Built build_shared(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    CommUntilTaken comm(ctx.comm);
    const SharedReach reach = shared_reach(plan, ctx);
    std::string why = shared_why_not(reach, ctx.comm);
    if (!why.empty()) return {nullptr, std::move(why)};
    comm.take();
    return {make_shared_part(plan, ctx, reach, true), {}};
}

} // namespace dri::detail
