// Defects found by driving the C API with bad input and odd call orders
// (issue "no call sequence may hang, crash or touch freed memory"), each
// pinned by a test that failed before its fix, and the messages that misled.
// Runs under a short timeout: a hang fails.
#include "dri/dri.h"
#include "mpi_world.hpp"
#include "nodes.hpp"

#include <doctest/doctest.h>
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using dri::test::same_everywhere;

MPI_Comm comm() {
    return dri::test::world();
}
int rank() {
    int r = 0;
    MPI_Comm_rank(comm(), &r);
    return r;
}
int size() {
    int n = 1;
    MPI_Comm_size(comm(), &n);
    return n;
}

#define OK(call) REQUIRE_MESSAGE((call) == DRI_SUCCESS, #call ": " << DRI_Last_error_message())

std::string last_message() {
    return DRI_Last_error_message();
}

bool has(const std::string& text, const char* words) {
    return text.find(words) != std::string::npos;
}

// A corner turn of an R x C int32 matrix over every process of comm(): row
// blocks (rows contiguous) to column blocks (columns contiguous), one buffer
// per side, allocated with DRI_Alloc_mem or by the test.
class Turn {
  public:
    static constexpr DRI_Index R = 24, C = 20;

    // `salt` sets the data apart from another turn's; `nbuf` (1 or 2)
    // buffers per ring.
    Turn(bool shared_memory, DRI_Strategy strategy, std::int32_t salt = 0, int nbuf = 1)
        : shared_(shared_memory), salt_(salt), nbuf_(nbuf) {
        const DRI_Index ext[2] = {R, C};
        OK(DRI_Globaldata_create(2, ext, DRI_INT32, &gdo_));
        OK(DRI_Partition_create_spec("block,whole", &rows_p_));
        OK(DRI_Partition_create_spec("whole,block", &cols_p_));
        OK(DRI_Group_create(comm(), 0, nullptr, &group_));
        OK(DRI_Distribution_create(gdo_, rows_p_, group_, &rows_));
        OK(DRI_Distribution_create(gdo_, cols_p_, group_, &cols_));
        const int row_major[2] = {0, 1}, col_major[2] = {1, 0};
        OK(DRI_Layout_create(2, row_major, nullptr, &rl_));
        OK(DRI_Layout_create(2, col_major, nullptr, &cl_));
        OK(DRI_Blockinfo_get(rows_, rl_, &sb_));
        OK(DRI_Blockinfo_get(cols_, cl_, &rb_));
        for (int k = 0; k < nbuf_; ++k) {
            sends_[k] = allocate(sb_.bytes, own_send_[k]);
            recvs_[k] = allocate(rb_.bytes, own_recv_[k]);
        }
        send_ = sends_[0];
        recv_ = recvs_[0];
        fill();
        OK(DRI_Transfer_create("reliability turn", &xfer_));
        const DRI_Index ss[2] = {sb_.bytes, sb_.bytes}, rs[2] = {rb_.bytes, rb_.bytes};
        OK(DRI_Transfer_send(xfer_, rows_, rl_, nbuf_, sends_, ss));
        OK(DRI_Transfer_recv(xfer_, cols_, cl_, nbuf_, recvs_, rs));
        OK(DRI_Transfer_set_strategy(xfer_, strategy));
    }

    ~Turn() {
        if (xfer_) DRI_Transfer_destroy(&xfer_);
        if (shared_)
            for (int k = 0; k < nbuf_; ++k) {
                DRI_Free_mem(sends_[k]);
                DRI_Free_mem(recvs_[k]);
            }
        DRI_Layout_destroy(&rl_);
        DRI_Layout_destroy(&cl_);
        DRI_Distribution_destroy(&rows_);
        DRI_Distribution_destroy(&cols_);
        DRI_Group_destroy(&group_);
        DRI_Partition_destroy(&rows_p_);
        DRI_Partition_destroy(&cols_p_);
        DRI_Globaldata_destroy(&gdo_);
    }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;

    DRI_Transfer xfer() const { return xfer_; }
    DRI_Transfer* xfer_ptr() { return &xfer_; }
    void* send_buffer() const { return send_; }
    void* recv_buffer() const { return recv_; }

    // Every element of this process's column block (in receive buffer k)
    // holds its global index.
    bool delivered(int k = 0) const {
        const auto* r = static_cast<const std::int32_t*>(recvs_[k]);
        for (DRI_Index j = 0; j < rb_.local_extent[1]; ++j)
            for (DRI_Index i = 0; i < R; ++i)
                if (r[j * R + i] != value(i, rb_.owned_first[1] + j)) return false;
        return true;
    }

    // Adds `plus` to every cell of receive buffer k.
    void bump(int k, std::int32_t plus) {
        auto* r = static_cast<std::int32_t*>(recvs_[k]);
        for (DRI_Index c = 0; c < rb_.local_extent[0] * rb_.local_extent[1]; ++c)
            r[c] += plus;
    }

    // Every element of this process's row block (in send buffer k) holds its
    // global index plus `plus`.
    bool holds(int k, std::int32_t plus) const {
        const auto* s = static_cast<const std::int32_t*>(sends_[k]);
        for (DRI_Index i = 0; i < sb_.local_extent[0]; ++i)
            for (DRI_Index j = 0; j < C; ++j)
                if (s[i * C + j] != value(sb_.owned_first[0] + i, j) + plus) return false;
        return true;
    }

  private:
    std::int32_t value(DRI_Index i, DRI_Index j) const {
        return static_cast<std::int32_t>(i * C + j) + salt_ * 100000;
    }

    void* allocate(DRI_Index bytes, std::vector<std::int32_t>& own) {
        if (!shared_) {
            own.assign(static_cast<std::size_t>(bytes / 4 + 1), -1);
            return own.data();
        }
        void* p = nullptr;
        OK(DRI_Alloc_mem(bytes, &p));
        return p;
    }

    void fill() {
        for (int k = 0; k < nbuf_; ++k) {
            auto* s = static_cast<std::int32_t*>(sends_[k]);
            for (DRI_Index i = 0; i < sb_.local_extent[0]; ++i)
                for (DRI_Index j = 0; j < C; ++j)
                    s[i * C + j] = value(sb_.owned_first[0] + i, j);
            std::memset(recvs_[k], 0xff, static_cast<std::size_t>(rb_.bytes));
        }
    }

    bool shared_;
    std::int32_t salt_ = 0;
    int nbuf_ = 1;
    DRI_Globaldata gdo_ = nullptr;
    DRI_Partition rows_p_ = nullptr, cols_p_ = nullptr;
    DRI_Group group_ = nullptr;
    DRI_Distribution rows_ = nullptr, cols_ = nullptr;
    DRI_Layout rl_ = nullptr, cl_ = nullptr;
    DRI_Blockinfo sb_{}, rb_{};
    std::vector<std::int32_t> own_send_[2], own_recv_[2];
    void* sends_[2] = {nullptr, nullptr};
    void* recvs_[2] = {nullptr, nullptr};
    void* send_ = nullptr;
    void* recv_ = nullptr;
    DRI_Transfer xfer_ = nullptr;
};

// Every strategy; the single copy is SHARED on one node, HYBRID on several
// (SHARED cannot apply to a corner turn across nodes).
std::vector<DRI_Strategy> every_strategy() {
    return {DRI_STRATEGY_AUTO,
            DRI_STRATEGY_P2P,
            DRI_STRATEGY_PACKED,
            DRI_STRATEGY_ALLTOALLW,
            DRI_STRATEGY_MEASURE,
            DRI_STRATEGY_NODES,
            static_cast<DRI_Strategy>(dri::test::single_copy_strategy())};
}

bool single_copy(DRI_Strategy s) {
    return s == DRI_STRATEGY_SHARED || s == DRI_STRATEGY_HYBRID;
}

} // namespace

TEST_CASE("DRI_Free_mem refuses memory a committed transfer uses, whatever its strategy") {
    for (DRI_Strategy s : every_strategy()) {
        CAPTURE(s);
        Turn turn(true, s);
        OK(DRI_Transfer_commit(turn.xfer()));
        for (void* p : {turn.send_buffer(), turn.recv_buffer()}) {
            const int rc = DRI_Free_mem(p);
            CHECK_MESSAGE(rc == DRI_ERR_STATE, "DRI_Free_mem returned " << rc);
            CHECK(same_everywhere(rc));
        }
        OK(DRI_Do(turn.xfer())); // the memory is still there
        CHECK(turn.delivered());
        OK(DRI_Transfer_destroy(turn.xfer_ptr()));
    } // ~Turn frees the memory: no longer in use
}

TEST_CASE("Destroying a transfer with a reorganization in flight completes it, every strategy") {
    for (bool shared : {false, true})
        for (DRI_Strategy s : every_strategy()) {
            if (single_copy(s) && !shared) continue;
            CAPTURE(shared);
            CAPTURE(s);
            Turn turn(shared, s);
            OK(DRI_Transfer_commit(turn.xfer()));
            OK(DRI_Do_start(turn.xfer()));
            // Half the processes destroy at once, the others complete first:
            // any order must work.
            if (rank() % 2 == 1) {
                OK(DRI_Do_wait(turn.xfer()));
                CHECK(turn.delivered());
            }
            OK(DRI_Transfer_destroy(turn.xfer_ptr()));
            CHECK(turn.delivered()); // destroy completed it
        }
}

TEST_CASE("DRI_Finalize with a reorganization in flight completes it; DRI_Init works again") {
    for (DRI_Strategy s :
         {DRI_STRATEGY_P2P, static_cast<DRI_Strategy>(dri::test::single_copy_strategy())}) {
        CAPTURE(s);
        {
            const bool shared = single_copy(s);
            Turn turn(shared, s);
            OK(DRI_Transfer_commit(turn.xfer()));
            OK(DRI_Do_start(turn.xfer()));
            OK(DRI_Finalize());
            if (!shared) CHECK(turn.delivered()); // shared memory is gone with finalize
            OK(DRI_Init());
        } // ~Turn: every handle is stale after finalize, every call refused
    }
}

TEST_CASE("Groups listing the same ranks in different orders: DRI_ERR_INCONSISTENT, no hang") {
    if (size() < 2) return;
    std::vector<int> ranks(static_cast<std::size_t>(size()));
    for (int i = 0; i < size(); ++i)
        ranks[static_cast<std::size_t>(i)] = rank() == 0 ? size() - 1 - i : i;
    DRI_Group g = nullptr;
    DRI_Globaldata gdo = nullptr;
    DRI_Partition part = nullptr;
    DRI_Distribution dist = nullptr;
    const DRI_Index ext[1] = {100};
    OK(DRI_Group_create(comm(), size(), ranks.data(), &g));
    OK(DRI_Globaldata_create(1, ext, DRI_FLOAT, &gdo));
    OK(DRI_Partition_create_spec("block", &part));
    const int rc = DRI_Distribution_create(gdo, part, g, &dist);
    CHECK_MESSAGE(rc == DRI_ERR_INCONSISTENT, "returned " << rc << ": " << last_message());
    CHECK(same_everywhere(rc));
    CHECK(has(last_message(), "different orders"));
    DRI_Partition_destroy(&part);
    DRI_Globaldata_destroy(&gdo);
    DRI_Group_destroy(&g);
}

TEST_CASE("A malformed partition text is an error") {
    for (const char* text :
         {"block~", "block~1", "block/", "block/-1", "cyclic()", "block,", "whole~1:1:sideways"}) {
        CAPTURE(text);
        DRI_Partition p = nullptr;
        CHECK(DRI_Partition_create_spec(text, &p) == DRI_ERR_ARG);
        CHECK(p == nullptr);
    }
    DRI_Partition p = nullptr;
    CHECK(DRI_Partition_create_spec("block/-1", &p) == DRI_ERR_ARG);
    CHECK(has(last_message(), "\"-1\""));
    CHECK(!has(last_message(), "\"block/-1\""));
}

TEST_CASE("Messages name what is wrong, once") {
    SUBCASE("a forced strategy that does not apply: one rank prefix") {
        Turn turn(false, DRI_STRATEGY_SHARED); // ordinary memory
        const int rc = DRI_Transfer_commit(turn.xfer());
        if (size() > 1) {
            CHECK(rc == DRI_ERR_STRATEGY);
            const std::string m = last_message();
            INFO(m);
            CHECK(has(m, "strategy SHARED does not apply"));
            CHECK(m.find("rank ") == m.rfind("rank ")); // "rank R:" once, not "rank 0: rank 0:"
        }
    }
    SUBCASE("strided layout without strides names the strides") {
        DRI_Layout l = nullptr;
        CHECK(DRI_Layout_create_strided(2, nullptr, &l) == DRI_ERR_NULL);
        CHECK(has(last_message(), "strides is NULL"));
    }
    SUBCASE("a reversed explicit range is called reversed") {
        const DRI_Index fl[2] = {5, 2};
        const DRI_Dimpart d = DRI_Dim_ranges(1, fl);
        DRI_Partition p = nullptr;
        CHECK(DRI_Partition_create(1, &d, &p) == DRI_ERR_PARTITION);
        CHECK(has(last_message(), "reversed"));
        CHECK(!has(last_message(), "[0, -1]"));
    }
    SUBCASE("the corner turn blames the corner turn") {
        DRI_Blockinfo s{}, r{};
        const int rc = DRI_Corner_turn_blocks(comm(), 40, rank() == 0 ? 30 : 31, DRI_FLOAT, &s, &r);
        if (size() > 1) {
            CHECK(rc == DRI_ERR_INCONSISTENT);
            CHECK(same_everywhere(rc));
            CHECK(has(last_message(), "corner turn"));
            CHECK(!has(last_message(), "distribution's collective creation"));
        }
    }
}

TEST_CASE("DRI_Group_create without a rank list: n is 0 or the parent's size") {
    for (int n : {-1, size() + 1, 2 * size() + 3}) {
        CAPTURE(n);
        DRI_Group g = nullptr;
        CHECK(DRI_Group_create(comm(), n, nullptr, &g) == DRI_ERR_GROUP);
        CHECK(has(last_message(), "n must be 0 or the parent's size"));
        CHECK(g == nullptr);
    }
    for (int n : {0, size()}) {
        DRI_Group g = nullptr;
        OK(DRI_Group_create(comm(), n, nullptr, &g));
        int got = 0;
        OK(DRI_Group_size(g, &got));
        CHECK(got == size());
        OK(DRI_Group_destroy(&g));
    }
}

// The progress rule of the single copy (docs/concepts.md): a completion call
// on a process progresses every single-copy transfer in flight there, so two
// SHARED (one node) or HYBRID (several) transfers in flight complete
// whatever order each rank completes them in. Before the rule, a reader
// copied only inside its own wait on that transfer, and crossed orders hung.
namespace {

// Completes `t` by DRI_Do_test alone; false after 30 s (a hang, reported
// instead of waited for).
bool test_until_done(DRI_Transfer t) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    int done = 0;
    while (!done) {
        if (DRI_Do_test(t, &done) != DRI_SUCCESS) return false;
        if (std::chrono::steady_clock::now() > end) return false;
    }
    return true;
}

// Two single-copy turns with their data set apart, both committed; `p2p`
// makes the second one move messages instead.
struct TwoTurns {
    std::unique_ptr<Turn> a, b;
    explicit TwoTurns(bool p2p = false) {
        const auto single = static_cast<DRI_Strategy>(dri::test::single_copy_strategy());
        a = std::make_unique<Turn>(true, single, 1);
        b = std::make_unique<Turn>(!p2p, p2p ? DRI_STRATEGY_P2P : single, 2);
        OK(DRI_Transfer_commit(a->xfer()));
        OK(DRI_Transfer_commit(b->xfer()));
    }
    // Even ranks take a first, odd ranks b.
    Turn& first() { return rank() % 2 == 0 ? *a : *b; }
    Turn& second() { return rank() % 2 == 0 ? *b : *a; }
};

} // namespace

TEST_CASE("Single copy: two transfers in flight complete in crossed orders") {
    SUBCASE("wait") {
        TwoTurns two;
        OK(DRI_Do_start(two.a->xfer()));
        OK(DRI_Do_start(two.b->xfer()));
        OK(DRI_Do_wait(two.first().xfer()));
        OK(DRI_Do_wait(two.second().xfer()));
        CHECK(two.a->delivered());
        CHECK(two.b->delivered());
    }
    SUBCASE("test") {
        TwoTurns two;
        OK(DRI_Do_start(two.a->xfer()));
        OK(DRI_Do_start(two.b->xfer()));
        CHECK(test_until_done(two.first().xfer()));
        CHECK(test_until_done(two.second().xfer()));
        CHECK(two.a->delivered());
        CHECK(two.b->delivered());
    }
    SUBCASE("destroy") {
        TwoTurns two;
        OK(DRI_Do_start(two.a->xfer()));
        OK(DRI_Do_start(two.b->xfer()));
        OK(DRI_Transfer_destroy(two.first().xfer_ptr()));
        OK(DRI_Transfer_destroy(two.second().xfer_ptr()));
        CHECK(two.a->delivered());
        CHECK(two.b->delivered());
    }
    SUBCASE("DRI_Do of another transfer while one is in flight") {
        for (bool p2p : {false, true}) {
            CAPTURE(p2p);
            TwoTurns two(p2p);
            // Even ranks run b to the end while a is in flight, odd ranks
            // complete a first.
            OK(DRI_Do_start(two.a->xfer()));
            if (rank() % 2 == 0) {
                OK(DRI_Do(two.b->xfer()));
                OK(DRI_Do_wait(two.a->xfer()));
            } else {
                OK(DRI_Do_wait(two.a->xfer()));
                OK(DRI_Do(two.b->xfer()));
            }
            CHECK(two.a->delivered());
            CHECK(two.b->delivered());
        }
    }
    SUBCASE("a started pair completed by a test on each rank's other transfer") {
        TwoTurns two;
        OK(DRI_Do_start(two.a->xfer()));
        OK(DRI_Do_start(two.b->xfer()));
        // Waiting for one's own only completes when the peer's copy of it
        // is progressed by the peer's calls on the other transfer.
        CHECK(test_until_done(two.second().xfer()));
        OK(DRI_Do_wait(two.first().xfer()));
        CHECK(two.a->delivered());
        CHECK(two.b->delivered());
    }
}

TEST_CASE("Single copy: DRI_Finalize completes transfers created in different orders") {
    {
        const auto single = static_cast<DRI_Strategy>(dri::test::single_copy_strategy());
        // The ranks create the two in opposite orders (finalize releases
        // what is left in an order of its own), then start both.
        std::unique_ptr<Turn> a, b;
        if (rank() % 2 == 0) {
            a = std::make_unique<Turn>(true, single, 1);
            b = std::make_unique<Turn>(true, single, 2);
        } else {
            b = std::make_unique<Turn>(true, single, 2);
            a = std::make_unique<Turn>(true, single, 1);
        }
        OK(DRI_Transfer_commit(a->xfer()));
        OK(DRI_Transfer_commit(b->xfer()));
        OK(DRI_Do_start(a->xfer()));
        OK(DRI_Do_start(b->xfer()));
        OK(DRI_Finalize()); // completes both, here in creation (address) order

        OK(DRI_Init());
    } // ~Turn: every handle is stale after finalize, every call refused
}

// DRI_Transfer_reverse is collective over the forward transfer's processes:
// a bad argument on one of them, or different combine operations, fail on
// every one of them with the same code (before, the others hung, or each
// combined with its own operation).
TEST_CASE("DRI_Transfer_reverse: one rank's bad or different argument fails on every rank") {
    if (size() < 2) return;
    const bool odd_one = rank() == size() - 1;
    SUBCASE("a NULL output handle on one rank") {
        Turn turn(false, DRI_STRATEGY_P2P);
        OK(DRI_Transfer_commit(turn.xfer()));
        DRI_Transfer rev = nullptr;
        const int rc = DRI_Transfer_reverse(turn.xfer(), DRI_COMBINE_SUM, odd_one ? nullptr : &rev);
        CHECK_MESSAGE(rc == DRI_ERR_NULL, "returned " << rc << ": " << last_message());
        CHECK(same_everywhere(rc));
        CHECK(rev == nullptr);
    }
    for (DRI_Combine other : {DRI_COMBINE_MAX, DRI_COMBINE_REPLACE}) {
        CAPTURE(other);
        Turn turn(false, DRI_STRATEGY_P2P);
        OK(DRI_Transfer_commit(turn.xfer()));
        DRI_Transfer rev = nullptr;
        const int rc = DRI_Transfer_reverse(turn.xfer(), odd_one ? other : DRI_COMBINE_SUM, &rev);
        CHECK_MESSAGE(rc == DRI_ERR_INCONSISTENT, "returned " << rc << ": " << last_message());
        CHECK(same_everywhere(rc));
        CHECK(has(last_message(), "different combine operations"));
        if (rev) DRI_Transfer_destroy(&rev);
        // The forward transfer is untouched and its reverse still made.
        OK(DRI_Transfer_reverse(turn.xfer(), DRI_COMBINE_SUM, &rev));
        OK(DRI_Do(turn.xfer()));
        CHECK(turn.delivered());
        OK(DRI_Transfer_destroy(&rev));
    }
}

// A reverse runs over its forward's rings. Starting one of them on a buffer
// the other has in flight is refused on the calling rank with DRI_ERR_STATE,
// touching nothing (before, it was accepted: with ALLTOALLW the forward then
// delivered wrong cells). Different buffers of a ring may overlap in time.
TEST_CASE("A reverse and its forward may not run on the same buffer at once") {
    // ALLTOALLW delivered wrong cells; the single copy reads the buffer
    // straight from another process (the others behave alike).
    for (DRI_Strategy s :
         {DRI_STRATEGY_ALLTOALLW, static_cast<DRI_Strategy>(dri::test::single_copy_strategy())}) {
        CAPTURE(s);
        Turn turn(true, s);
        OK(DRI_Transfer_commit(turn.xfer()));
        DRI_Transfer rev = nullptr;
        OK(DRI_Transfer_reverse(turn.xfer(), DRI_COMBINE_SUM, &rev));
        // The forward in flight: the reverse is refused, blocking or not.
        OK(DRI_Do_start(turn.xfer()));
        CHECK(DRI_Do(rev) == DRI_ERR_STATE);
        CHECK(has(last_message(), "in flight"));
        CHECK(DRI_Do_start(rev) == DRI_ERR_STATE);
        OK(DRI_Do_wait(turn.xfer()));
        CHECK(turn.delivered()); // untouched by the refused calls
        // The reverse in flight: the forward is refused.
        OK(DRI_Do_start(rev));
        CHECK(DRI_Do(turn.xfer()) == DRI_ERR_STATE);
        CHECK(DRI_Do_start(turn.xfer()) == DRI_ERR_STATE);
        OK(DRI_Do_wait(rev));
        // Both usable again, one after the other.
        OK(DRI_Do(turn.xfer()));
        CHECK(turn.delivered());
        OK(DRI_Do(rev));
        OK(DRI_Transfer_destroy(&rev));
    }
}

TEST_CASE("A reverse may run on one buffer while its forward moves another") {
    for (DRI_Strategy s :
         {DRI_STRATEGY_ALLTOALLW, static_cast<DRI_Strategy>(dri::test::single_copy_strategy())}) {
        CAPTURE(s);
        Turn turn(true, s, 0, 2);
        OK(DRI_Transfer_commit(turn.xfer()));
        DRI_Transfer rev = nullptr;
        OK(DRI_Transfer_reverse(turn.xfer(), DRI_COMBINE_SUM, &rev));
        OK(DRI_Do(turn.xfer())); // send buffer 0 -> receive buffer 0
        CHECK(turn.delivered(0));
        turn.bump(0, 7);               // what the receivers computed
        OK(DRI_Do_start(turn.xfer())); // buffer 1 in flight ...
        OK(DRI_Do(rev));               // ... while buffer 0 comes back
        OK(DRI_Do_wait(turn.xfer()));
        CHECK(turn.delivered(1));
        CHECK(turn.holds(0, 7)); // each element has one copy: the sum is that copy
        CHECK(turn.holds(1, 0));
        OK(DRI_Transfer_destroy(&rev));
    }
}

// docs/concepts.md ("Layouts"): an empty block stores nothing, padding or not.
TEST_CASE("DRI_Blockinfo of an empty block with padding: 0 bytes") {
    if (size() < 2) return;
    const DRI_Index ext[1] = {1}; // one element: every process but the first holds none
    DRI_Globaldata gdo = nullptr;
    DRI_Partition part = nullptr;
    DRI_Group group = nullptr;
    DRI_Distribution dist = nullptr;
    DRI_Layout padded = nullptr;
    OK(DRI_Globaldata_create(1, ext, DRI_INT32, &gdo));
    OK(DRI_Partition_create_spec("block[0:]", &part));
    OK(DRI_Group_create(comm(), 0, nullptr, &group));
    OK(DRI_Distribution_create(gdo, part, group, &dist));
    const int order[1] = {0};
    const DRI_Index pad[1] = {5};
    OK(DRI_Layout_create(1, order, pad, &padded));
    DRI_Blockinfo first{}, last{};
    OK(DRI_Blockinfo_get_index(dist, padded, 0, &first));
    OK(DRI_Blockinfo_get_index(dist, padded, size() - 1, &last));
    CHECK(first.bytes == (1 + 5) * 4); // the outermost padding is allocated
    CHECK(last.local_extent[0] == 0);
    CHECK(last.bytes == 0);
    DRI_Layout_destroy(&padded);
    DRI_Distribution_destroy(&dist);
    DRI_Group_destroy(&group);
    DRI_Partition_destroy(&part);
    DRI_Globaldata_destroy(&gdo);
}
