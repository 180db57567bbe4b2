#include "mpi/strategies/reverse.hpp"

#include "kernels/copy.hpp"
#include "mpi/datatype.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/messages.hpp"
#include "mpi/strategies/scratch.hpp"

#include <algorithm>

namespace dri::detail {

namespace {

class ReverseExecutor final : public RequestExecutor {
  public:
    ReverseExecutor(const std::vector<ReversePart>& parts, MPI_Comm comm,
                    const core::ElementType& type, core::CombineOp op)
        : RequestExecutor(comm), type_(type), op_(op) {
        core::LocalPlan none;
        none.elem_size = type.size;
        construct(none, [&] { build(parts); });
    }
    ~ReverseExecutor() override { release(); }

    // send: this process's receive buffer of the forward transfer (the
    // copies); recv: its send buffer (the elements they combine into).
    void start(const std::byte* send, std::byte* recv) override {
        target_ = recv;
        next_ = 0;
        std::fill(arrived_.begin(), arrived_.end(), false);
        std::size_t k = 0;
        for (const Msg& m : ins_)
            check_mpi(
                recv_bytes(rbuf_.get() + m.offset, m.bytes, m.type, m.rank, comm_, &reqs_[k++]),
                "MPI_Irecv");
        for (const Msg& m : outs_) {
            const std::byte* at = send + m.offset;
            if (m.route == Route::packed) {
                pack_all(send, m.regions, elem_size(), sbuf_.get() + m.offset);
                at = sbuf_.get() + m.offset;
            }
            check_mpi(send_bytes(at, m.bytes, m.type, m.rank, comm_, &reqs_[k++]), "MPI_Isend");
        }
        if (own_first_) {
            for (const core::Region& r : self_)
                core::copy_region(send, recv, r, elem_size());
        } else {
            if (op_ != core::CombineOp::replace)
                for (const core::Region& r : targets_)
                    core::identity_region(recv, r, type_, op_);
            for (const core::Region& r : self_)
                core::combine_region(send, recv, r, type_, op_);
        }
        pending_ = static_cast<int>(reqs_.size());
    }

    void drop_pending() noexcept override {
        for (std::size_t i = 0; i < reqs_.size(); ++i)
            drop(reqs_[i], i < ins_.size());
        pending_ = 0;
    }

  private:
    using Msg = Message;

    void build(const std::vector<ReversePart>& parts) {
        core::Index soff = 0, roff = 0;
        for (const ReversePart& p : parts) {
            // Every receiver combines, so reads each message whole.
            for (const core::PeerRegions& peer : p.plan.sends)
                outs_.push_back(
                    plan_message(peer, rank_of(p.send_rank, peer), elem_size(), true, soff, true));
            // Contributions are combined, not stored: always through scratch.
            for (const core::PeerRegions& peer : p.plan.recvs) {
                ins_.push_back(
                    plan_message(peer, rank_of(p.recv_rank, peer), elem_size(), false, roff, true));
                targets_.insert(targets_.end(), peer.regions.begin(), peer.regions.end());
            }
            self_.insert(self_.end(), p.plan.self.begin(), p.plan.self.end());
        }
        own_first_ = own_copies_first();
        targets_.insert(targets_.end(), self_.begin(), self_.end());
        sbuf_ = Scratch(soff, send_scratch_pages(mpi_library()));
        rbuf_ = Scratch(roff);
        reqs_.assign(ins_.size() + outs_.size(), MPI_REQUEST_NULL);
        done_.assign(reqs_.size(), 0);
        arrived_.assign(ins_.size(), false);
    }

    // Whether each element's first contribution, this process's own copy,
    // can be stored rather than combined into the identity: the own copies
    // reach each element at most once and reach every element a peer's copy
    // does. One pass over the block (a copy) then replaces two (identity,
    // then combination), as in a hand-written accumulation. Decided once,
    // cell by cell, with one bit per element of the block.
    bool own_copies_first() const {
        if (self_.empty() || op_ == core::CombineOp::replace) return false;
        core::Index cells = 0;
        for (const core::Region& r : targets_)
            cells = std::max(cells, last_cell(r) + 1);
        for (const core::Region& r : self_)
            cells = std::max(cells, last_cell(r) + 1);
        std::vector<bool> own(static_cast<std::size_t>(cells), false);
        bool once = true;
        for (const core::Region& r : self_)
            for_each_cell(r, [&](core::Index c) {
                once = once && !own[static_cast<std::size_t>(c)];
                own[static_cast<std::size_t>(c)] = true;
            });
        bool covered = once;
        for (const core::Region& r : targets_)
            for_each_cell(
                r, [&](core::Index c) { covered = covered && own[static_cast<std::size_t>(c)]; });
        return covered;
    }

    // Calls f(element index) for each destination element of r, in order.
    template <class F>
    void for_each_cell(const core::Region& r, F&& f) const {
        const auto walk = [&](auto&& self, std::size_t axis, core::Index off) -> void {
            if (axis == r.axes.size()) return f(off / elem_size());
            for (core::Index i = 0; i < r.axes[axis].n; ++i)
                self(self, axis + 1, off + i * r.axes[axis].r);
        };
        walk(walk, 0, r.r_off);
    }

    // The index of the last destination element of r (a stride may be
    // negative: a wrapped halo comes back to the other end).
    core::Index last_cell(const core::Region& r) const {
        core::Index off = r.r_off;
        for (const core::Axis& a : r.axes)
            off += std::max<core::Index>(0, (a.n - 1) * a.r);
        return off / elem_size();
    }

    static int rank_of(const std::vector<int>& ranks, const core::PeerRegions& peer) {
        return ranks.at(static_cast<std::size_t>(peer.peer));
    }

    // Combines the messages that have arrived, in plan order: message i
    // waits for 0..i-1, so the order of the combination is fixed.
    void arrived(int index) override {
        --pending_;
        if (static_cast<std::size_t>(index) >= ins_.size()) return; // a send completed
        arrived_[static_cast<std::size_t>(index)] = true;
        for (; next_ < ins_.size() && arrived_[next_]; ++next_) {
            const std::byte* in = rbuf_.get() + ins_[next_].offset;
            for (const core::Region& r : ins_[next_].regions)
                in += core::combine_unpack_region(in, r, type_, op_, target_);
        }
    }

    void release_more() noexcept override {
        if (mpi_alive())
            for (MPI_Request& r : reqs_)
                if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (Msg& m : outs_)
            m.type.reset();
        for (Msg& m : ins_)
            m.type.reset();
    }

    core::ElementType type_;
    core::CombineOp op_;
    std::vector<Msg> ins_, outs_;
    std::vector<core::Region> self_;    // own copies, combined first
    std::vector<core::Region> targets_; // every element combined into (identity first)
    bool own_first_ = false;            // see own_copies_first
    Scratch sbuf_, rbuf_;
    std::vector<bool> arrived_;
    std::size_t next_ = 0;
    std::byte* target_ = nullptr;
};

} // namespace

std::unique_ptr<Executor> make_reverse(const std::vector<ReversePart>& parts, MPI_Comm comm,
                                       const core::ElementType& type, core::CombineOp op) {
    return std::make_unique<ReverseExecutor>(parts, comm, type, op);
}

} // namespace dri::detail
