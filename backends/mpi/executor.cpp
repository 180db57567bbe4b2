#include "executor.hpp"

#include "copy.hpp"
#include "runtime.hpp"
#include "shared.hpp"
#include "wire.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>

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
    // Runs the derived class's construction; on failure frees everything,
    // the communicator included (it is ours from the start).
    template <class F>
    void construct(const core::LocalPlan& plan, F&& build) {
        try {
            local_.elem_size = plan.elem_size;
            local_.self = plan.self;
            local_.fills = plan.fills;
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

    MPI_Comm comm_;
    core::LocalPlan local_;
};

class AlltoallwExecutor final : public CommExecutor {
  public:
    AlltoallwExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx)
        : CommExecutor(ctx.comm) {
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

    // A nonblocking collective cannot be cancelled, and freeing it while
    // active is erroneous: the handle is forgotten instead (after an MPI
    // error, a leaked request beats a hang).
    void drop_pending() noexcept override { req_ = MPI_REQUEST_NULL; }

  private:
    void release_more() noexcept override {
        if (req_ != MPI_REQUEST_NULL && mpi_alive()) MPI_Wait(&req_, MPI_STATUS_IGNORE);
        req_ = MPI_REQUEST_NULL;
        owned_.clear();
    }

    MPI_Request req_ = MPI_REQUEST_NULL;
    std::vector<int> scounts_, rcounts_, sdispls_, rdispls_;
    std::vector<MPI_Datatype> stypes_, rtypes_;
    std::vector<Datatype> owned_;
    std::byte dummy_{};
};

// Scratch memory for packed messages, 64-byte aligned so the kernels can use
// aligned (non-temporal) stores. Allocated and touched at commit, never in
// DRI_Do: touching maps every page now, so the first DRI_Do does not pay one
// page fault per 4 KiB (2.5 GiB of fresh scratch cost seconds of faults).
class Scratch {
  public:
    Scratch() = default;
    explicit Scratch(core::Index bytes) {
        if (bytes <= 0) return;
        const auto rounded = static_cast<std::size_t>((bytes + 63) / 64 * 64);
        p_ = static_cast<std::byte*>(std::aligned_alloc(64, rounded));
        if (!p_)
            core::fail(core::Errc::no_memory,
                       "cannot allocate " + std::to_string(bytes) + " bytes of scratch");
        std::memset(p_, 0, rounded);
    }
    Scratch(Scratch&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
    Scratch& operator=(Scratch&& o) noexcept {
        std::swap(p_, o.p_);
        return *this;
    }
    Scratch(const Scratch&) = delete;
    ~Scratch() { std::free(p_); }
    std::byte* get() const { return p_; }

  private:
    std::byte* p_ = nullptr;
};

core::Index total_bytes(const std::vector<core::Region>& regs, core::Index elem) {
    core::Index n = 0;
    for (const core::Region& r : regs)
        n = core::checked_add(n, core::checked_mul(r.elements(), elem, "bytes"), "bytes");
    return n;
}

void pack_all(const std::byte* src, const std::vector<core::Region>& regs, core::Index elem,
              std::byte* out) {
    for (const core::Region& r : regs)
        out += core::pack_region(src, r, elem, out);
}

void unpack_all(const std::byte* in, const std::vector<core::Region>& regs, core::Index elem,
                std::byte* dst) {
    for (const core::Region& r : regs)
        in += core::unpack_region(in, r, elem, dst);
}

// One side of one message: where its bytes are when they travel.
enum class Route {
    direct,   // one contiguous run in the user's buffer, sent/received as bytes
    datatype, // long contiguous runs: a derived datatype on the user's buffer
    packed,   // through scratch memory, packed/unpacked by our kernels
};

// The route of one side of a message (is_send: the sender's side).
Route route_of(const std::vector<core::Region>& regs, core::Index elem, bool is_send,
               core::Index* offset) {
    auto stride = [&](const core::Axis& a) { return is_send ? a.s : a.r; };
    if (regs.size() == 1) {
        const core::Region& r = regs[0];
        if (r.axes.empty() || (r.axes.size() == 1 && stride(r.axes[0]) == elem)) {
            *offset = is_send ? r.s_off : r.r_off;
            return Route::direct;
        }
    }
    // Long runs: the innermost axis is contiguous on this side and long.
    constexpr core::Index long_run = 2048;
    bool long_runs = true;
    for (const core::Region& r : regs)
        long_runs &=
            !r.axes.empty() && stride(r.axes.back()) == elem && r.axes.back().n * elem >= long_run;
    return long_runs ? Route::datatype : Route::packed;
}

// One message to or from a peer: `bytes` contiguous bytes at buf, or, when
// the message has a datatype, one element of it at buf. The datatype is the
// derived type of Route::datatype, or on MPI-3 a byte-range type for more
// than INT_MAX contiguous bytes (see needs_big); both are built at commit.
int send_bytes(const std::byte* buf, core::Index bytes, const Datatype& type, int peer,
               MPI_Comm comm, MPI_Request* req) {
    if (type.get() != MPI_DATATYPE_NULL) return MPI_Isend(buf, 1, type.get(), peer, 0, comm, req);
#if DRI_MPI_LARGE_COUNT
    return MPI_Isend_c(buf, bytes, MPI_BYTE, peer, 0, comm, req);
#else
    return MPI_Isend(buf, static_cast<int>(bytes), MPI_BYTE, peer, 0, comm, req);
#endif
}

int recv_bytes(std::byte* buf, core::Index bytes, const Datatype& type, int peer, MPI_Comm comm,
               MPI_Request* req) {
    if (type.get() != MPI_DATATYPE_NULL) return MPI_Irecv(buf, 1, type.get(), peer, 0, comm, req);
#if DRI_MPI_LARGE_COUNT
    return MPI_Irecv_c(buf, bytes, MPI_BYTE, peer, 0, comm, req);
#else
    return MPI_Irecv(buf, static_cast<int>(bytes), MPI_BYTE, peer, 0, comm, req);
#endif
}

// True when `bytes` cannot be an int count of MPI_BYTE in this build.
bool needs_big(core::Index bytes) {
    return !DRI_MPI_LARGE_COUNT && bytes > INT_MAX;
}

class PackedExecutor final : public CommExecutor {
  public:
    PackedExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx)
        : CommExecutor(ctx.comm) {
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
        run_local(local_, send, recv);
    }
    void wait() override {
        check_mpi(MPI_Wait(&req_, MPI_STATUS_IGNORE), "MPI_Wait");
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
        sbuf_ = Scratch(stotal);
        rbuf_ = Scratch(rtotal);
    }

    void finish() {
        for (const Peer& p : recvs_)
            unpack_all(rbuf_.get() + p.offset, p.regions, elem_size(), recv_target_);
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

// Executors driven by point-to-point requests: wait and test complete them
// in any order and hand each completed one to arrived() (which may start
// another and count it in pending_).
class RequestExecutor : public CommExecutor {
  public:
    void wait() override {
        while (pending_ > 0) {
            int index = MPI_UNDEFINED;
            check_mpi(MPI_Waitany(static_cast<int>(reqs_.size()), reqs_.data(), &index,
                                  MPI_STATUS_IGNORE),
                      "MPI_Waitany");
            if (index == MPI_UNDEFINED) break;
            arrived(index);
        }
        pending_ = 0;
    }

    bool test() override {
        while (pending_ > 0) {
            int count = 0;
            check_mpi(MPI_Testsome(static_cast<int>(reqs_.size()), reqs_.data(), &count,
                                   done_.data(), MPI_STATUSES_IGNORE),
                      "MPI_Testsome");
            if (count == MPI_UNDEFINED) pending_ = 0;
            if (count <= 0) break;
            for (int i = 0; i < count; ++i)
                arrived(done_[static_cast<std::size_t>(i)]);
        }
        return pending_ == 0;
    }

  protected:
    using CommExecutor::CommExecutor;
    virtual void arrived(int index) = 0;

    std::vector<MPI_Request> reqs_;
    std::vector<int> done_; // indices from MPI_Testsome
    int pending_ = 0;       // requests started and not yet completed
};

class P2PExecutor final : public RequestExecutor {
  public:
    P2PExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx)
        : RequestExecutor(ctx.comm) {
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
        run_local(local_, send, recv);
        pending_ = static_cast<int>(reqs_.size());
    }

    void drop_pending() noexcept override {
        for (std::size_t i = 0; i < reqs_.size(); ++i)
            drop(reqs_[i], i < recvs_.size());
        pending_ = 0;
    }

  private:
    struct Msg {
        int rank = 0;
        Route route = Route::packed;
        core::Index bytes = 0;
        core::Index offset = 0; // in the user's buffer (direct; 0 for datatype) or scratch (packed)
        Datatype type;          // Route::datatype, or a byte range above INT_MAX on MPI-3
        std::vector<core::Region> regions;
    };

    void build(const core::LocalPlan& plan, const ExecutorContext& ctx) {
        int me = 0;
        check_mpi(MPI_Comm_rank(comm_, &me), "MPI_Comm_rank");
        core::Index soff = 0, roff = 0;
        auto add = [&](const core::PeerRegions& p, bool is_send, core::Index& scratch) {
            Msg m;
            m.rank = is_send ? ctx.recv_rank.at(static_cast<std::size_t>(p.peer))
                             : ctx.send_rank.at(static_cast<std::size_t>(p.peer));
            m.bytes = total_bytes(p.regions, elem_size());
            m.route = route_of(p.regions, elem_size(), is_send, &m.offset);
            if (m.route == Route::datatype)
                m.type = regions_datatype(p.regions, is_send ? SideOf::sender : SideOf::receiver,
                                          elem_size());
            if (m.route == Route::packed) {
                m.offset = scratch;
                scratch = core::checked_add(scratch, (m.bytes + 63) / 64 * 64, "scratch size");
            }
            if (m.route != Route::datatype && needs_big(m.bytes))
                m.type = byte_range_datatype(0, m.bytes);
            m.regions = p.regions;
            return m;
        };
        for (const core::PeerRegions& p : plan.recvs)
            recvs_.push_back(add(p, false, roff));
        for (const core::PeerRegions& p : plan.sends)
            sends_.push_back(add(p, true, soff));
        // Send to the next ranks first, so that not everyone targets rank 0 at once.
        std::stable_sort(sends_.begin(), sends_.end(), [&](const Msg& a, const Msg& b) {
            return (a.rank - me + (1 << 30)) % (1 << 30) < (b.rank - me + (1 << 30)) % (1 << 30);
        });
        sbuf_ = Scratch(soff);
        rbuf_ = Scratch(roff);
        reqs_.assign(recvs_.size() + sends_.size(), MPI_REQUEST_NULL);
        done_.assign(reqs_.size(), 0);
    }

    void arrived(int index) override {
        --pending_;
        if (static_cast<std::size_t>(index) >= recvs_.size()) return; // a send completed
        const Msg& m = recvs_[static_cast<std::size_t>(index)];
        if (m.route == Route::packed)
            unpack_all(rbuf_.get() + m.offset, m.regions, elem_size(), recv_target_);
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

class SharedExecutor final : public RequestExecutor {
  public:
    SharedExecutor(const core::LocalPlan& plan, const ExecutorContext& ctx)
        : RequestExecutor(ctx.comm) {
        construct(plan, [&] { build(plan, ctx); });
    }
    ~SharedExecutor() override { release(); }

    void start(const std::byte* send, std::byte* recv) override {
        recv_target_ = recv;
        const std::size_t ns = sources_.size(), nr = readers_.size();
        std::size_t k = 0;
        for (Source& src : sources_)
            check_mpi(MPI_Irecv(&src.ready, 1, MPI_INT, src.rank, ready_tag, comm_, &reqs_[k++]),
                      "MPI_Irecv");
        if (nr > 0) {
            // Which buffer of the ring is read; published once written.
            mine_ = -1;
            for (std::size_t i = 0; i < own_.size(); ++i)
                if (own_[i].data() == send) mine_ = static_cast<int>(i);
            if (mine_ < 0) core::fail(core::Errc::internal, "send buffer not in the ring");
            check_mpi(MPI_Win_sync(own_wins_[static_cast<std::size_t>(mine_)]), "MPI_Win_sync");
            for (int r : readers_)
                check_mpi(MPI_Irecv(nullptr, 0, MPI_BYTE, r, done_tag, comm_, &reqs_[k++]),
                          "MPI_Irecv");
            for (int r : readers_)
                check_mpi(MPI_Isend(&mine_, 1, MPI_INT, r, ready_tag, comm_, &reqs_[k++]),
                          "MPI_Isend");
        }
        pending_ = static_cast<int>(ns + 2 * nr);
        run_local(local_, send, recv);
    }

    void drop_pending() noexcept override {
        for (std::size_t i = 0; i < reqs_.size(); ++i)
            drop(reqs_[i], i < sources_.size() + readers_.size());
        pending_ = 0;
    }

  private:
    static constexpr int ready_tag = 1, done_tag = 2;

    // A sender this process reads from: its ring in this address space.
    struct Source {
        int rank = 0;
        std::vector<core::Region> regions;
        std::vector<const std::byte*> ring;
        std::vector<MPI_Win> wins;
        int ready = -1; // the ring index the sender published
    };

    void build(const core::LocalPlan& plan, const ExecutorContext& ctx) {
        int world = 0;
        check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &world), "MPI_Comm_rank");
        // Publish where each buffer of the ring lives: (allocation key,
        // offset in this process's segment), key 0 when not shared.
        std::string why;
        Writer w;
        w.i64(world);
        w.i64(static_cast<core::Index>(ctx.send_buffers.size()));
        for (const std::span<std::byte>& b : ctx.send_buffers) {
            const auto bytes = static_cast<core::Index>(b.size());
            SharedBlock* blk = shared_find_own(b.data(), bytes);
            w.i64(blk ? static_cast<core::Index>(blk->key) : 0);
            w.i64(blk ? b.data() - blk->base : 0);
            w.i64(bytes);
            own_.push_back(b);
            own_wins_.push_back(blk ? blk->win : MPI_WIN_NULL);
            if (blk) use(blk);
        }
        for (const core::PeerRegions& p : plan.sends)
            readers_.push_back(ctx.recv_rank.at(static_cast<std::size_t>(p.peer)));
        if (!readers_.empty() && std::count(own_wins_.begin(), own_wins_.end(), MPI_WIN_NULL) > 0)
            why = "a send buffer was not allocated by DRI_Alloc_mem";
        std::vector<core::Index> sizes;
        const std::vector<std::byte> all = allgather_bytes(comm_, w.bytes(), sizes);
        // Read the senders' tables; any failure here is agreed below, so
        // that no process leaves the collective calls early.
        Status st = capture([&] { read_sources(plan, ctx, all, sizes, why); });
        if (ctx.shared_needs_peers) { // collective on every process, whatever `why` holds
            int peers = sources_.empty() && readers_.empty() ? 0 : 1;
            check_mpi(MPI_Allreduce(MPI_IN_PLACE, &peers, 1, MPI_INT, MPI_MAX, comm_),
                      "MPI_Allreduce");
            if (!peers && why.empty()) why = "no process reads from another";
        }
        if (!st.failed() && !why.empty()) st = {core::Errc::buffer, "strategy SHARED: " + why};
        agree(comm_, st);
        reqs_.assign(sources_.size() * 2 + readers_.size() * 2, MPI_REQUEST_NULL);
        done_.assign(reqs_.size(), 0);
    }

    // For each sender this process reads from: its ring in this address
    // space, from the table it published (world rank, ring size, then key,
    // offset and bytes per buffer). Sets `why` when a buffer is out of reach.
    void read_sources(const core::LocalPlan& plan, const ExecutorContext& ctx,
                      const std::vector<std::byte>& all, const std::vector<core::Index>& sizes,
                      std::string& why) {
        std::vector<std::size_t> at(sizes.size() + 1, 0);
        for (std::size_t r = 0; r < sizes.size(); ++r)
            at[r + 1] = at[r] + static_cast<std::size_t>(sizes[r]);
        for (const core::PeerRegions& p : plan.recvs) {
            Source src;
            src.rank = ctx.send_rank.at(static_cast<std::size_t>(p.peer));
            src.regions = p.regions;
            const auto r = static_cast<std::size_t>(src.rank);
            Reader rd(all.data() + at[r], static_cast<std::size_t>(sizes[r]));
            const int their_world = static_cast<int>(rd.i64());
            const core::Index n = rd.i64();
            for (core::Index i = 0; i < n; ++i) {
                const auto key = static_cast<std::uint64_t>(rd.i64());
                const core::Index off = rd.i64(), bytes = rd.i64();
                SharedBlock* blk = key ? shared_find(key) : nullptr;
                const auto pos = blk ? std::find(blk->world.begin(), blk->world.end(), their_world)
                                     : std::vector<int>::iterator{};
                if (!blk || pos == blk->world.end()) {
                    if (why.empty())
                        why = "the buffers of sender rank " + std::to_string(their_world) +
                              " are not in DRI shared memory this process belongs to (not "
                              "allocated by DRI_Alloc_mem, or on another node)";
                    break;
                }
                const auto node = static_cast<std::size_t>(pos - blk->world.begin());
                const std::byte* base = blk->bases[node] + off;
                if (!within(base, bytes, blk->bases[node], blk->sizes[node]))
                    core::fail(core::Errc::internal, "a published buffer lies outside its segment");
                src.ring.push_back(base);
                src.wins.push_back(blk->win);
                use(blk);
            }
            sources_.push_back(std::move(src));
        }
    }

    void use(SharedBlock* b) {
        shared_use(b, +1);
        used_.push_back(b);
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
        check_mpi(MPI_Win_sync(src.wins[b]), "MPI_Win_sync");
        for (const core::Region& reg : src.regions)
            core::copy_region(src.ring[b], recv_target_, reg, elem_size());
        check_mpi(MPI_Win_sync(src.wins[b]), "MPI_Win_sync");
        const std::size_t slot = sources_.size() + 2 * readers_.size() + i;
        check_mpi(MPI_Isend(nullptr, 0, MPI_BYTE, src.rank, done_tag, comm_, &reqs_[slot]),
                  "MPI_Isend");
        ++pending_;
    }

    void release_more() noexcept override {
        if (mpi_alive())
            for (MPI_Request& r : reqs_)
                if (r != MPI_REQUEST_NULL) MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (SharedBlock* b : used_)
            shared_use(b, -1);
        used_.clear();
    }

    std::vector<Source> sources_;
    std::vector<int> readers_;
    std::vector<std::span<std::byte>> own_;
    std::vector<MPI_Win> own_wins_;
    std::vector<SharedBlock*> used_;
    int mine_ = -1;
    std::byte* recv_target_ = nullptr;
};

} // namespace

std::unique_ptr<Executor> make_alltoallw_executor(const core::LocalPlan& plan,
                                                  const ExecutorContext& ctx) {
    return std::make_unique<AlltoallwExecutor>(plan, ctx);
}

} // namespace dri::detail

namespace dri::detail {

std::unique_ptr<Executor> make_packed_executor(const core::LocalPlan& plan,
                                               const ExecutorContext& ctx) {
    return std::make_unique<PackedExecutor>(plan, ctx);
}

std::unique_ptr<Executor> make_p2p_executor(const core::LocalPlan& plan,
                                            const ExecutorContext& ctx) {
    return std::make_unique<P2PExecutor>(plan, ctx);
}

std::unique_ptr<Executor> make_shared_executor(const core::LocalPlan& plan,
                                               const ExecutorContext& ctx) {
    return std::make_unique<SharedExecutor>(plan, ctx);
}

} // namespace dri::detail
