// PACKED: every peer packed into one scratch buffer (cache-blocked,
// transposing kernels), one MPI_Alltoallv, every peer unpacked.
#include "mpi/datatype.hpp"
#include "mpi/strategies/base.hpp"
#include "mpi/strategies/messages.hpp"
#include "mpi/strategies/scratch.hpp"

#include <algorithm>

namespace dri::detail {

namespace {

class PackedExecutor final : public CommExecutor {
  public:
    PackedExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx) : CommExecutor(ctx) {
        construct(plan, [&] { build(plan, ctx); });
    }
    ~PackedExecutor() override { release(); }

    void start(const std::byte* send, std::byte* recv) override {
        for (const Peer& p : sends_)
            pack_all(send, p.regions, elem_size(), sbuf_.get() + p.offset);
        recv_target_ = recv;
        if (!stypes_.empty()) {
            check_mpi(MPI_Ialltoallw(sbuf_.get(), sones_.data(), zeros_.data(), stypes_.data(),
                                     rbuf_.get(), rones_.data(), zeros_.data(), rtypes_.data(),
                                     comm_, &req_),
                      "MPI_Ialltoallw");
        } else {
#if DRI_MPI_LARGE_COUNT
            check_mpi(MPI_Ialltoallv_c(sbuf_.get(), scounts_.data(), sdispls_.data(), MPI_BYTE,
                                       rbuf_.get(), rcounts_.data(), rdispls_.data(), MPI_BYTE,
                                       comm_, &req_),
                      "MPI_Ialltoallv_c");
#else
            check_mpi(MPI_Ialltoallv(sbuf_.get(), scounts_.data(), sdispls_.data(), MPI_BYTE,
                                     rbuf_.get(), rcounts_.data(), rdispls_.data(), MPI_BYTE, comm_,
                                     &req_),
                      "MPI_Ialltoallv");
#endif
        }
        run_local(send, recv);
    }
    void wait() override {
        wait_any_progressing(1, &req_, nullptr); // progresses the single copies in flight
        finish();
    }
    bool test() override {
        int done = 0;
        check_mpi(MPI_Test(&req_, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) finish();
        return done != 0;
    }
    // As for MPI_Ialltoallw above: the collective's handle is forgotten.
    void drop_pending() noexcept override {
        req_ = MPI_REQUEST_NULL;
    }

  private:
    struct Peer {
        core::Index offset = 0;
        std::vector<core::Region> regions;
    };
#if DRI_MPI_LARGE_COUNT
    using Count = MPI_Count;
    using Displ = MPI_Aint;
#else
    using Count = int;
    using Displ = int;
#endif

    // Per rank of the communicator: the bytes exchanged and where they sit in
    // scratch; then the arguments of the collective that moves them.
    void build(const core::LocalPlan& plan, const ExecutorContext& ctx) {
        int n = 0;
        check_mpi(MPI_Comm_size(comm_, &n), "MPI_Comm_size");
        const auto un = static_cast<std::size_t>(n);
        std::vector<core::Index> sbytes(un, 0), rbytes(un, 0), soffs(un, 0), roffs(un, 0);
        auto place = [&](const std::vector<core::PeerRegions>& msgs, const std::vector<int>& ranks,
                         std::vector<Peer>& peers, std::vector<core::Index>& bytes,
                         std::vector<core::Index>& offs) {
            core::Index off = 0;
            for (const core::PeerRegions& p : msgs) {
                const auto rank =
                    static_cast<std::size_t>(ranks.at(static_cast<std::size_t>(p.peer)));
                bytes[rank] = total_bytes(p.regions, elem_size());
                offs[rank] = off;
                peers.push_back({off, p.regions});
                off = core::checked_add(off, bytes[rank], "scratch size");
            }
            return off;
        };
        const core::Index stotal = place(plan.sends, ctx.recv_rank, sends_, sbytes, soffs);
        const core::Index rtotal = place(plan.recvs, ctx.send_rank, recvs_, rbytes, roffs);
        if (needs_big(stotal) || needs_big(rtotal)) {
            // MPI-3 cannot count or place this much in MPI_Alltoallv: each
            // peer's bytes become one byte-range datatype (offset inside).
            zeros_.assign(un, 0);
            sones_.assign(un, 0);
            rones_.assign(un, 0);
            stypes_.assign(un, MPI_BYTE);
            rtypes_.assign(un, MPI_BYTE);
            for (std::size_t r = 0; r < un; ++r) {
                if (sbytes[r] > 0) {
                    owned_.push_back(byte_range_datatype(soffs[r], sbytes[r]));
                    stypes_[r] = owned_.back().get();
                    sones_[r] = 1;
                }
                if (rbytes[r] > 0) {
                    owned_.push_back(byte_range_datatype(roffs[r], rbytes[r]));
                    rtypes_[r] = owned_.back().get();
                    rones_[r] = 1;
                }
            }
        } else {
            scounts_.assign(sbytes.begin(), sbytes.end());
            rcounts_.assign(rbytes.begin(), rbytes.end());
            sdispls_.assign(soffs.begin(), soffs.end());
            rdispls_.assign(roffs.begin(), roffs.end());
        }
        sbuf_ = Scratch(ctx.arena, stotal, send_scratch_pages(mpi_library()));
        rbuf_ = Scratch(ctx.arena, rtotal);
    }

    void finish() {
        for (const Peer& p : recvs_)
            arrival_.unpack(rbuf_.get() + p.offset, p.regions, recv_target_);
    }

    void release_more() noexcept override {
        if (req_ != MPI_REQUEST_NULL && mpi_alive()) MPI_Wait(&req_, MPI_STATUS_IGNORE);
        req_ = MPI_REQUEST_NULL;
        owned_.clear();
    }

    std::vector<Peer> sends_, recvs_;
    std::vector<Count> scounts_, rcounts_;
    std::vector<Displ> sdispls_, rdispls_;
    // MPI-3 above INT_MAX bytes: MPI_Alltoallw over byte-range datatypes.
    std::vector<int> sones_, rones_, zeros_;
    std::vector<MPI_Datatype> stypes_, rtypes_;
    std::vector<Datatype> owned_;
    Scratch sbuf_, rbuf_;
    MPI_Request req_ = MPI_REQUEST_NULL;
    std::byte* recv_target_ = nullptr;
};

} // namespace

Built build_packed(const core::LocalPlan& plan, const ExecutorContext& ctx) {
    return {std::make_unique<PackedExecutor>(plan, ctx), {}};
}

} // namespace dri::detail
