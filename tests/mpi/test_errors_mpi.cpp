// Every DRI_ERR_* code, triggered through the C binding (docs/errors.md maps
// each code to its test case here); collective calls return the same code on
// every rank; MPI failures inside DRI_Do come back as DRI_ERR_MPI (injected
// through the MPI profiling interface) and leave nothing hanging.
#include "core/wire.hpp"
#include "dri/dri.hpp"
#include "dri/dri10.h"
#include "mpi_world.hpp"
#include "nodes.hpp"

#include <doctest/doctest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using dri::test::same_everywhere;
using dri::test::world;
using dri::test::world_rank;
using dri::test::world_size;

// `call` returned `code`, with a message of its own and the code's text.
#define EXPECT_CODE(call, code)                                                                    \
    do {                                                                                           \
        const int rc_ = (call);                                                                    \
        CHECK_MESSAGE(rc_ == (code),                                                               \
                      #call " returned " << rc_ << " (" << DRI_Last_error_message() << ")");       \
        if (rc_ != DRI_SUCCESS) {                                                                  \
            CHECK(std::strlen(DRI_Last_error_message()) > 0);                                      \
            CHECK(std::string(DRI_Error_string(rc_)) != "unknown error code");                     \
        }                                                                                          \
    } while (0)

// A collective call: the code, and the same code on every rank.
#define EXPECT_CODE_ALL(call, code)                                                                \
    do {                                                                                           \
        const int rca_ = (call);                                                                   \
        EXPECT_CODE(rca_, code);                                                                   \
        CHECK(same_everywhere(rca_));                                                              \
    } while (0)

#define OK(call) REQUIRE_MESSAGE((call) == DRI_SUCCESS, #call ": " << DRI_Last_error_message())

// Owns C handles of one kind and destroys them at scope end.
template <class H, int (*Destroy)(H*)>
struct Own {
    H h = nullptr;
    Own() = default;
    Own(const Own&) = delete;
    Own& operator=(const Own&) = delete;
    ~Own() {
        if (h) Destroy(&h);
    }
    H* operator&() { return &h; }
    operator H() const { return h; }
};
using Gdo = Own<DRI_Globaldata, DRI_Globaldata_destroy>;
using Part = Own<DRI_Partition, DRI_Partition_destroy>;
using Grp = Own<DRI_Group, DRI_Group_destroy>;
using Dist = Own<DRI_Distribution, DRI_Distribution_destroy>;
using Lay = Own<DRI_Layout, DRI_Layout_destroy>;
using Xfer = Own<DRI_Transfer, DRI_Transfer_destroy>;

// The corner turn's extents: 12 x 8, or more where there are more ranks,
// so that every rank owns a row and a column.
DRI_Index turn_rows() {
    return std::max<DRI_Index>(12, world_size());
}
DRI_Index turn_cols() {
    return std::max<DRI_Index>(8, world_size());
}

// A float corner turn over all ranks: rows -> columns.
struct Turn {
    const DRI_Index R = turn_rows(), C = turn_cols();
    Gdo gdo;
    Part rows_p, cols_p;
    Grp all;
    Dist rows, cols;
    Lay row_major, col_major;
    DRI_Blockinfo si{}, ri{};
    std::vector<float> sb, rb;
    float* sp = nullptr; // the send block: sb, or node shared memory after use_shared()
    void* shared = nullptr;
    void* sbuf[1] = {nullptr};
    void* rbuf[1] = {nullptr};
    DRI_Index ssize[1] = {0}, rsize[1] = {0};

    explicit Turn(DRI_Datatype recv_type = DRI_FLOAT) {
        const DRI_Index ext[2] = {R, C};
        const DRI_Dimpart rp[2] = {DRI_Dim_block(), DRI_Dim_whole()};
        const DRI_Dimpart cp[2] = {DRI_Dim_whole(), DRI_Dim_block()};
        const int order_rows[2] = {0, 1}, order_cols[2] = {1, 0};
        OK(DRI_Globaldata_create(2, ext, DRI_FLOAT, &gdo));
        OK(DRI_Partition_create(2, rp, &rows_p));
        OK(DRI_Partition_create(2, cp, &cols_p));
        OK(DRI_Group_create(world(), 0, nullptr, &all));
        OK(DRI_Distribution_create(gdo, rows_p, all, &rows));
        if (recv_type == DRI_FLOAT) {
            OK(DRI_Distribution_create(gdo, cols_p, all, &cols));
        } else {
            Gdo other;
            OK(DRI_Globaldata_create(2, ext, recv_type, &other));
            OK(DRI_Distribution_create(other, cols_p, all, &cols));
        }
        OK(DRI_Layout_create(2, order_rows, nullptr, &row_major));
        OK(DRI_Layout_create(2, order_cols, nullptr, &col_major));
        OK(DRI_Blockinfo_get(rows, row_major, &si));
        OK(DRI_Blockinfo_get(cols, col_major, &ri));
        sb.assign(static_cast<std::size_t>(si.bytes / 4) + 1, 0.0f);
        rb.assign(static_cast<std::size_t>(ri.bytes / 4) + 16, 0.0f);
        sp = sb.data();
        sbuf[0] = sp;
        rbuf[0] = rb.data();
        ssize[0] = si.bytes;
        rsize[0] = ri.bytes;
    }
    // The send block moves to memory from DRI_Alloc_mem (freed
    // by the destructor, after the transfers declared later are gone).
    void use_shared() {
        OK(DRI_Alloc_mem(si.bytes, &shared));
        sp = static_cast<float*>(shared);
        sbuf[0] = shared;
    }
    ~Turn() {
        if (shared) CHECK(DRI_Free_mem(shared) == DRI_SUCCESS);
    }
    Turn(const Turn&) = delete;
    Turn& operator=(const Turn&) = delete;
    int send(DRI_Transfer t) { return DRI_Transfer_send(t, rows, row_major, 1, sbuf, ssize); }
    // Sends from another distribution of the same data, with a buffer of its size.
    int send_from(DRI_Transfer t, DRI_Distribution d, std::vector<float>& store) {
        DRI_Blockinfo bi{};
        const int rc = DRI_Blockinfo_get(d, row_major, &bi);
        if (rc != DRI_SUCCESS) return rc;
        store.assign(static_cast<std::size_t>(bi.bytes / 4) + 1, 0.0f);
        void* b[1] = {store.data()};
        const DRI_Index sz[1] = {bi.bytes};
        return DRI_Transfer_send(t, d, row_major, 1, b, sz);
    }
    int recv(DRI_Transfer t) { return DRI_Transfer_recv(t, cols, col_major, 1, rbuf, rsize); }
    void fill(int frame) {
        for (DRI_Index i = 0; i < si.local_extent[0]; ++i)
            for (DRI_Index j = 0; j < C; ++j)
                sp[i * C + j] =
                    static_cast<float>((si.owned_first[0] + i) * 100 + j + frame * 10000);
    }
    // One DRI_Do of frame 0, checked.
    void check_one_frame(DRI_Transfer t) {
        fill(0);
        OK(DRI_Do(t));
        CHECK(wrong(0) == 0);
    }
    long wrong(int frame) const {
        long bad = 0;
        for (DRI_Index j = 0; j < ri.local_extent[1]; ++j)
            for (DRI_Index i = 0; i < R; ++i)
                bad += rb[static_cast<std::size_t>(j * R + i)] !=
                       static_cast<float>(i * 100 + ri.owned_first[1] + j + frame * 10000);
        return bad;
    }
};

// A float distribution over all ranks with the given first-dimension
// partition: r rows (the corner turn's by default), the corner turn's columns.
int make_dist(const DRI_Dimpart& d0, Dist& out, DRI_Index r = turn_rows()) {
    const DRI_Index ext[2] = {r, turn_cols()};
    const DRI_Dimpart dp[2] = {d0, DRI_Dim_whole()};
    Gdo gdo;
    Part part;
    Grp all;
    int rc = DRI_Globaldata_create(2, ext, DRI_FLOAT, &gdo);
    if (rc == DRI_SUCCESS) rc = DRI_Partition_create(2, dp, &part);
    if (rc == DRI_SUCCESS) rc = DRI_Group_create(world(), 0, nullptr, &all);
    if (rc == DRI_SUCCESS) rc = DRI_Distribution_create(gdo, part, all, &out);
    return rc;
}

} // namespace

TEST_CASE("DRI_ERR_ARG: empty transfer name") {
    Xfer t;
    EXPECT_CODE(DRI_Transfer_create("", &t), DRI_ERR_ARG);
    // Every value in DRI_Strategy's range (0-7) is a strategy: a value that
    // is none is C-only and tested in tests/c/test_c_api.c.
}

TEST_CASE("DRI_ERR_NULL: NULL extents, name and output pointers") {
    DRI_Globaldata g = nullptr;
    EXPECT_CODE(DRI_Globaldata_create(2, nullptr, DRI_FLOAT, &g), DRI_ERR_NULL);
    const DRI_Index ext[2] = {4, 4};
    EXPECT_CODE(DRI_Globaldata_create(2, ext, DRI_FLOAT, nullptr), DRI_ERR_NULL);
    DRI_Transfer t = nullptr;
    EXPECT_CODE(DRI_Transfer_create(nullptr, &t), DRI_ERR_NULL);
}

TEST_CASE("DRI_ERR_HANDLE: null, destroyed and wrong-kind handles") {
    EXPECT_CODE(DRI_Do(nullptr), DRI_ERR_HANDLE);
    Xfer t;
    OK(DRI_Transfer_create("t", &t));
    DRI_Transfer copy = t;
    OK(DRI_Transfer_destroy(&t.h));
    EXPECT_CODE(DRI_Do(copy), DRI_ERR_HANDLE);
    Part p;
    const DRI_Dimpart dp[1] = {DRI_Dim_block()};
    OK(DRI_Partition_create(1, dp, &p));
    int n = 0;
    DRI_Index ext[DRI_MAX_DIMS], eb = 0;
    EXPECT_CODE(DRI_Globaldata_get(reinterpret_cast<DRI_Globaldata>(p.h), &n, ext, &eb),
                DRI_ERR_HANDLE);
}

TEST_CASE("DRI_ERR_NDIMS: 0 and 9 dimensions") {
    const DRI_Index ext[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2};
    Gdo g;
    EXPECT_CODE(DRI_Globaldata_create(0, ext, DRI_FLOAT, &g), DRI_ERR_NDIMS);
    EXPECT_CODE(DRI_Globaldata_create(9, ext, DRI_FLOAT, &g), DRI_ERR_NDIMS);
    const int order[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
    Lay l;
    EXPECT_CODE(DRI_Layout_create(9, order, nullptr, &l), DRI_ERR_NDIMS);
}

TEST_CASE("DRI_ERR_EXTENT: zero and negative extents") {
    Gdo g;
    const DRI_Index zero[2] = {4, 0}, neg[2] = {-3, 4};
    EXPECT_CODE(DRI_Globaldata_create(2, zero, DRI_FLOAT, &g), DRI_ERR_EXTENT);
    EXPECT_CODE(DRI_Globaldata_create(2, neg, DRI_FLOAT, &g), DRI_ERR_EXTENT);
}

TEST_CASE("DRI_ERR_OVERFLOW: 2^40 x 2^40 floats do not fit in 64 bits of bytes") {
    Gdo g;
    const DRI_Index ext[2] = {DRI_Index{1} << 40, DRI_Index{1} << 40};
    EXPECT_CODE(DRI_Globaldata_create(2, ext, DRI_FLOAT, &g), DRI_ERR_OVERFLOW);
}

TEST_CASE("DRI_ERR_TYPE: element types 0 and 15 (no type), empty record") {
    Gdo g;
    const DRI_Index ext[1] = {4};
    EXPECT_CODE(DRI_Globaldata_create(1, ext, static_cast<DRI_Datatype>(0), &g), DRI_ERR_TYPE);
    EXPECT_CODE(DRI_Globaldata_create(1, ext, static_cast<DRI_Datatype>(15), &g), DRI_ERR_TYPE);
    EXPECT_CODE(DRI_Globaldata_create_record(1, ext, 0, &g), DRI_ERR_TYPE);
}

TEST_CASE("DRI_ERR_PARTITION: cyclic block of 0, ranges without ranges") {
    // An unknown kind (outside the C enumeration) is tested from C.
    Part p;
    DRI_Dimpart d = DRI_Dim_cyclic(0);
    EXPECT_CODE(DRI_Partition_create(1, &d, &p), DRI_ERR_PARTITION);
    d = DRI_Dim_ranges(0, nullptr);
    EXPECT_CODE(DRI_Partition_create(1, &d, &p), DRI_ERR_PARTITION);
}

TEST_CASE("DRI_ERR_OVERLAP: negative overlap, overlap larger than the data") {
    Part p;
    DRI_Dimpart d = DRI_Dim_block4(-1, 1, DRI_UNBOUNDED, 0, DRI_EDGE_ZERO);
    EXPECT_CODE(DRI_Partition_create(1, &d, &p), DRI_ERR_OVERLAP);
    // Wrapping 13 cells around an extent of 12 (n + 1 around n) would repeat
    // cells: collective.
    const DRI_Index n = turn_rows();
    Dist dist;
    EXPECT_CODE_ALL(make_dist(DRI_Dim_block4(n + 1, 1, DRI_UNBOUNDED, 0, DRI_EDGE_WRAP), dist),
                    DRI_ERR_OVERLAP);
}

TEST_CASE("DRI_ERR_MINMAX: min > max, max of 0, min larger than the extent") {
    Part p;
    DRI_Dimpart d = DRI_Dim_block4(0, 5, 3, 0, DRI_EDGE_TRUNCATE);
    EXPECT_CODE(DRI_Partition_create(1, &d, &p), DRI_ERR_MINMAX);
    d = DRI_Dim_block4(0, 0, 0, 0, DRI_EDGE_TRUNCATE);
    EXPECT_CODE(DRI_Partition_create(1, &d, &p), DRI_ERR_MINMAX);
    // A minimum of 20 rows for 12 (8 more than the extent).
    Dist dist;
    EXPECT_CODE_ALL(
        make_dist(DRI_Dim_block4(0, turn_rows() + 8, DRI_UNBOUNDED, 0, DRI_EDGE_TRUNCATE), dist),
        DRI_ERR_MINMAX);
}

TEST_CASE("DRI_ERR_GRID: min/max block extents unsatisfiable for the process count") {
    // At most 1 row per process needs 12 processes for 12 rows (and more
    // rows than processes where there are 12 or more).
    const DRI_Index n = std::max<DRI_Index>(12, world_size() + 1);
    Dist d;
    EXPECT_CODE_ALL(make_dist(DRI_Dim_block4(0, 1, 1, 0, DRI_EDGE_TRUNCATE), d, n), DRI_ERR_GRID);
}

TEST_CASE("DRI_ERR_LAYOUT: order not a permutation, a 3-D layout for 2-D data") {
    Lay l;
    const int twice[2] = {0, 0};
    EXPECT_CODE(DRI_Layout_create(2, twice, nullptr, &l), DRI_ERR_LAYOUT);
    Turn turn;
    Lay three;
    const int order3[3] = {0, 1, 2};
    OK(DRI_Layout_create(3, order3, nullptr, &three));
    DRI_Blockinfo bi{};
    EXPECT_CODE(DRI_Blockinfo_get(turn.rows, three, &bi), DRI_ERR_LAYOUT);
}

TEST_CASE("DRI_ERR_NOT_DISJOINT and DRI_ERR_NOT_COVERING: explicit sender ranges at commit") {
    const int p = world_size();
    const DRI_Index n = turn_rows(); // at least p rows
    // Row k for each process k < p-1; the last process's range varies.
    std::vector<DRI_Index> ranges;
    for (int k = 0; k < p - 1; ++k) {
        ranges.push_back(k);
        ranges.push_back(k);
    }
    auto commit_with = [&](const char* name, int expected) {
        Dist d;
        OK(make_dist(DRI_Dim_ranges(p, ranges.data()), d));
        Turn turn;
        std::vector<float> store;
        Xfer t;
        OK(DRI_Transfer_create(name, &t));
        OK(turn.send_from(t, d, store));
        OK(turn.recv(t));
        EXPECT_CODE_ALL(DRI_Transfer_commit(t), expected);
    };
    SUBCASE("row n-1 owned by nobody") {
        ranges.push_back(p - 1);
        ranges.push_back(n - 2);
        commit_with("gap", DRI_ERR_NOT_COVERING);
    }
    if (p >= 2) {
        SUBCASE("rows owned twice") {
            ranges.push_back(0); // the last process owns [0, n-1]
            ranges.push_back(n - 1);
            commit_with("twice", DRI_ERR_NOT_DISJOINT);
        }
    }
}

TEST_CASE("DRI_ERR_MISMATCH: the two sides' element types differ (float vs double)") {
    Turn turn(DRI_DOUBLE);
    Xfer t;
    OK(DRI_Transfer_create("types", &t));
    OK(turn.send(t));
    // The receive buffer is sized for floats; the commit must not get that far.
    OK(DRI_Transfer_recv(t, turn.cols, turn.col_major, 1, turn.rbuf, turn.rsize));
    EXPECT_CODE_ALL(DRI_Transfer_commit(t), DRI_ERR_MISMATCH);
}

TEST_CASE("DRI_ERR_NO_PARTNER: each rank commits a name only it knows") {
    Turn turn;
    Xfer t;
    const std::string name = "only rank " + std::to_string(world_rank());
    OK(DRI_Transfer_create(name.c_str(), &t));
    OK(turn.send(t));
    EXPECT_CODE_ALL(DRI_Transfer_commit(t), DRI_ERR_NO_PARTNER);
}

TEST_CASE("DRI_ERR_DUPLICATE: a role declared twice, a name twice in one commit") {
    Turn turn;
    Xfer a, b;
    OK(DRI_Transfer_create("dup", &a));
    OK(DRI_Transfer_create("dup", &b));
    OK(turn.send(a));
    EXPECT_CODE(turn.send(a), DRI_ERR_DUPLICATE);
    OK(turn.recv(a));
    OK(turn.recv(b));
    OK(turn.send(b));
    DRI_Transfer both[2] = {a, b};
    EXPECT_CODE_ALL(DRI_Commit(world(), 2, both), DRI_ERR_DUPLICATE);
}

TEST_CASE("DRI_ERR_BUFFER, _BUFFER_SIZE, _BUFFER_COUNT: the buffer ring") {
    Turn turn;
    Xfer t;
    OK(DRI_Transfer_create("buffers", &t));
    void* null_buf[1] = {nullptr};
    EXPECT_CODE(DRI_Transfer_send(t, turn.rows, turn.row_major, 1, null_buf, turn.ssize),
                DRI_ERR_BUFFER);
    const DRI_Index small[1] = {turn.si.bytes - 1};
    EXPECT_CODE(DRI_Transfer_send(t, turn.rows, turn.row_major, 1, turn.sbuf, small),
                DRI_ERR_BUFFER_SIZE);
    EXPECT_CODE(DRI_Transfer_send(t, turn.rows, turn.row_major, 0, turn.sbuf, turn.ssize),
                DRI_ERR_BUFFER_COUNT);
    EXPECT_CODE(DRI_Transfer_send(t, turn.rows, turn.row_major, -2, turn.sbuf, turn.ssize),
                DRI_ERR_BUFFER_COUNT);
}

TEST_CASE("DRI_ERR_STATE: DRI_Do before commit, wait without start, strategy after commit") {
    Turn turn;
    Xfer t;
    OK(DRI_Transfer_create("state", &t));
    EXPECT_CODE(DRI_Do(t), DRI_ERR_STATE);
    OK(turn.send(t));
    OK(turn.recv(t));
    OK(DRI_Transfer_commit(t));
    EXPECT_CODE(DRI_Do_wait(t), DRI_ERR_STATE);
    EXPECT_CODE(DRI_Transfer_set_strategy(t, DRI_STRATEGY_P2P), DRI_ERR_STATE);
    EXPECT_CODE(DRI_Init(), DRI_ERR_STATE);
    OK(DRI_Do_start(t));
    EXPECT_CODE(DRI_Do_start(t), DRI_ERR_STATE);
    OK(DRI_Do_wait(t));
}

// A transfer that declares no role has no processes to agree with: its
// commit fails on the calling process alone, at once, from C and from C++.
// Here the caller is the last process of a sub-communicator (ranks {0, 1})
// and no other process calls dri: the others wait in a barrier on a
// communicator of their own, so a commit that waits for any of them (the
// library once fell back to a collective over MPI_COMM_WORLD) hangs, and the
// test's timeout fails it.
TEST_CASE("DRI_ERR_STATE: a transfer without a role committed alone on one process") {
    const int me = world_rank();
    MPI_Comm idle = MPI_COMM_NULL, sub = MPI_COMM_NULL;
    MPI_Comm_dup(world(), &idle);
    MPI_Comm_split(world(), me < 2 ? 0 : MPI_UNDEFINED, me, &sub);
    int sub_rank = -1, sub_size = 0;
    if (sub != MPI_COMM_NULL) {
        MPI_Comm_rank(sub, &sub_rank);
        MPI_Comm_size(sub, &sub_size);
    }
    const bool lone = sub != MPI_COMM_NULL && sub_rank == sub_size - 1;
    if (lone) {
        Xfer t;
        OK(DRI_Transfer_create("no role", &t));
        EXPECT_CODE(DRI_Transfer_commit(t), DRI_ERR_STATE);
        EXPECT_CODE(DRI_Do(t), DRI_ERR_STATE); // nothing was committed
        dri::Transfer u("no role either");
        dri::Errc c = dri::Errc::success;
        try {
            u.commit();
        } catch (const dri::Error& e) {
            c = e.code();
        }
        CHECK(c == dri::Errc::state);
        CHECK_FALSE(u.committed());
    }
    int callers = lone ? 1 : 0; // exactly one process called dri
    MPI_Allreduce(MPI_IN_PLACE, &callers, 1, MPI_INT, MPI_SUM, idle);
    CHECK(callers == 1);
    if (sub != MPI_COMM_NULL) MPI_Comm_free(&sub);
    MPI_Comm_free(&idle);
}

TEST_CASE("DRI_Alloc_mem, DRI_Free_mem: local calls with local errors; SHARED's refusal") {
    const int me = world_rank(), last = world_size() - 1;
    void* p = nullptr;
    // Local: only the last rank allocates, frees and fails; nobody waits.
    if (me == last) {
        EXPECT_CODE(DRI_Alloc_mem(-1, &p), DRI_ERR_ARG);
        EXPECT_CODE(DRI_Alloc_mem(64, nullptr), DRI_ERR_NULL);
        EXPECT_CODE(DRI_Alloc_mem(INT64_MAX, &p), DRI_ERR_OVERFLOW);
        OK(DRI_Alloc_mem(1 << 20, &p));
        OK(DRI_Free_mem(p));
    }
    void *a = nullptr, *b = nullptr, *c = nullptr;
    OK(DRI_Alloc_mem(64 * (me + 1), &a));
    OK(DRI_Alloc_mem(0, &b)); // nothing asked: still a distinct, valid address
    OK(DRI_Alloc_mem(0, &c));
    CHECK(b != c);
    CHECK(reinterpret_cast<std::uintptr_t>(a) % 4096 == 0);
    std::memset(a, 0x5A, static_cast<std::size_t>(64 * (me + 1)));
    EXPECT_CODE(DRI_Free_mem(static_cast<char*>(a) + 1), DRI_ERR_ARG);
    EXPECT_CODE(DRI_Free_mem(nullptr), DRI_ERR_ARG);
    OK(DRI_Free_mem(b));
    EXPECT_CODE(DRI_Free_mem(b), DRI_ERR_ARG); // twice
    OK(DRI_Free_mem(a));
    OK(DRI_Free_mem(c));

    Turn turn;
    if (world_size() >= 2) { // one rank copies locally and needs no shared memory
        Xfer plain;
        OK(DRI_Transfer_create("plain", &plain));
        OK(DRI_Transfer_set_strategy(plain, DRI_STRATEGY_SHARED));
        OK(turn.send(plain));
        OK(turn.recv(plain));
        EXPECT_CODE_ALL(DRI_Transfer_commit(plain), DRI_ERR_STRATEGY);
        CHECK(std::string(DRI_Last_error_message()).find("DRI_Alloc_mem") != std::string::npos);
    }
    turn.use_shared();
    {
        Xfer t;
        OK(DRI_Transfer_create("shared", &t));
        OK(DRI_Transfer_set_strategy(t,
                                     static_cast<DRI_Strategy>(dri::test::single_copy_strategy())));
        OK(turn.send(t));
        OK(turn.recv(t));
        OK(DRI_Transfer_commit(t));
        EXPECT_CODE(DRI_Free_mem(turn.shared), DRI_ERR_STATE);
        for (int f = 0; f < 3; ++f) {
            turn.fill(f);
            OK(DRI_Do(t));
            CHECK(turn.wrong(f) == 0);
        }
    } // destroyed: the memory may now be freed (by ~Turn)
}

// Issue 43: DRI_Free_mem returned success on an owned ring's buffer, the
// transfer then wrote into freed memory and its destruction freed it again.
TEST_CASE("DRI_Free_mem refuses a buffer of a ring the transfer owns, before and after commit") {
    Turn turn;
    Xfer t;
    OK(DRI_Transfer_create("owned", &t));
    OK(DRI_Transfer_send(t, turn.rows, turn.row_major, 2, nullptr, nullptr));
    OK(turn.recv(t));
    void* ring[2] = {nullptr, nullptr};
    for (int k = 0; k < 2; ++k) {
        OK(DRI_Transfer_buffer(t, DRI_ROLE_SEND, k, &ring[k], nullptr));
        EXPECT_CODE(DRI_Free_mem(ring[k]), DRI_ERR_ARG);
        CHECK(std::string(DRI_Last_error_message()).find("lives as long as its owner") !=
              std::string::npos);
    }
    OK(DRI_Transfer_commit(t));
    for (int f = 0; f < 4; ++f) {
        EXPECT_CODE(DRI_Free_mem(ring[f % 2]), DRI_ERR_ARG);
        dri::SharedMemory::deallocate(ring[f % 2]); // cannot report: ignored
        turn.sp = static_cast<float*>(ring[f % 2]);
        turn.fill(f);
        OK(DRI_Do(t));
        CHECK(turn.wrong(f) == 0);
    }
} // the transfer frees its ring, once

// A declaration refused on one rank (a buffer too small) used to surface at
// commit as DRI_ERR_NO_PARTNER elsewhere, or, when that was the rank's only
// role, to leave the others waiting in commit: the refusal is remembered
// and fails the commit on every rank with the refusing rank's own error.
TEST_CASE("a role refused on one rank fails the commit on every rank with that rank's error") {
    const int me = world_rank(), last = world_size() - 1;
    Turn turn;
    const DRI_Index too_small[1] = {turn.si.bytes - 1};
    for (const bool only_role : {false, true}) {
        CAPTURE(only_role);
        Xfer t;
        OK(DRI_Transfer_create("refused", &t));
        if (me == last) {
            EXPECT_CODE(DRI_Transfer_send(t, turn.rows, turn.row_major, 1, turn.sbuf, too_small),
                        DRI_ERR_BUFFER_SIZE);
            if (!only_role) OK(turn.recv(t));
        } else {
            OK(turn.send(t));
            OK(turn.recv(t));
        }
        EXPECT_CODE_ALL(DRI_Transfer_commit(t), DRI_ERR_BUFFER_SIZE);
        const std::string msg = DRI_Last_error_message();
        CHECK_MESSAGE(msg.find("refused a role") != std::string::npos, msg);
        CHECK_MESSAGE(
            msg.find("has " + std::to_string(too_small[0]) + " bytes") != std::string::npos, msg);
    }
    // Declared again, correctly: the refusal is forgotten.
    Xfer t;
    OK(DRI_Transfer_create("refused, then declared", &t));
    if (me == last) {
        EXPECT_CODE(DRI_Transfer_send(t, turn.rows, turn.row_major, 1, turn.sbuf, too_small),
                    DRI_ERR_BUFFER_SIZE);
        EXPECT_CODE(DRI_Transfer_send(t, turn.rows, turn.row_major, 0, turn.sbuf, turn.ssize),
                    DRI_ERR_BUFFER_COUNT);
    }
    OK(turn.send(t));
    OK(turn.recv(t));
    OK(DRI_Transfer_commit(t));
    turn.check_one_frame(t);
}

// DRI_ERR_NOT_INITIALIZED (calls before DRI_Init and after DRI_Finalize) is
// covered by tests/c/test_c_api.c: this runner keeps the library initialized.

TEST_CASE("DRI_ERR_GROUP: ranks outside the parent, a rank twice, MPI_COMM_NULL") {
    Grp g;
    const int outside[1] = {world_size()};
    const int twice[2] = {0, 0};
    EXPECT_CODE(DRI_Group_create(world(), 1, outside, &g), DRI_ERR_GROUP);
    EXPECT_CODE(DRI_Group_create(world(), 2, twice, &g), DRI_ERR_GROUP);
    EXPECT_CODE(DRI_Group_create(MPI_COMM_NULL, 0, nullptr, &g), DRI_ERR_GROUP);
}

TEST_CASE("DRI_ERR_INCONSISTENT: ranks pass different arguments to a collective") {
    if (world_size() < 2) return; // one rank cannot disagree with itself
    SUBCASE("different extents") {
        Dist d;
        EXPECT_CODE_ALL(make_dist(DRI_Dim_block(), d, turn_rows() + (world_rank() == 1 ? 1 : 0)),
                        DRI_ERR_INCONSISTENT);
    }
    SUBCASE("different partitions") {
        Dist d;
        EXPECT_CODE_ALL(make_dist(world_rank() == 0 ? DRI_Dim_block() : DRI_Dim_cyclic(2), d),
                        DRI_ERR_INCONSISTENT);
    }
    SUBCASE("different element types") {
        const DRI_Index ext[2] = {turn_rows(), turn_cols()};
        const DRI_Dimpart dp[2] = {DRI_Dim_block(), DRI_Dim_whole()};
        Gdo gdo;
        Part part;
        Grp all;
        Dist d;
        OK(DRI_Globaldata_create(2, ext, world_rank() == 0 ? DRI_FLOAT : DRI_INT32, &gdo));
        OK(DRI_Partition_create(2, dp, &part));
        OK(DRI_Group_create(world(), 0, nullptr, &all));
        EXPECT_CODE_ALL(DRI_Distribution_create(gdo, part, all, &d), DRI_ERR_INCONSISTENT);
    }
}

TEST_CASE("DRI_ERR_INTERNAL: a corrupt declaration on the wire") {
    // The commit's exchange is decoded by this reader; bytes that cannot be
    // a declaration are a library invariant broken, not a user error.
    dri::core::Writer w;
    w.str("name");
    std::vector<std::byte> bytes = w.bytes();
    bytes.erase(bytes.end() - 2, bytes.end()); // truncated
    dri::core::Reader r(bytes.data(), bytes.size());
    try {
        (void)r.str();
        FAIL("a truncated string was read");
    } catch (const dri::core::Error& e) {
        CHECK(e.code() == dri::core::Errc::internal);
        CHECK(static_cast<int>(e.code()) == DRI_ERR_INTERNAL);
    }
}

TEST_CASE("DRI_ERR_NO_MEMORY: commit cannot allocate 4 TiB of scratch") {
    if (world_size() < 2) return; // one rank needs no scratch
    // 2^21 x 2^21 floats (16 TiB): only the sizes are real. Commit plans a
    // transposing pack into scratch of one peer's share and must fail
    // cleanly on every rank; no user buffer is ever touched.
    const DRI_Index n = DRI_Index{1} << 21;
    const DRI_Index ext[2] = {n, n};
    const DRI_Dimpart rp[2] = {DRI_Dim_block(), DRI_Dim_whole()};
    const DRI_Dimpart cp[2] = {DRI_Dim_whole(), DRI_Dim_block()};
    const int rm[2] = {0, 1}, cm[2] = {1, 0};
    Gdo g;
    Part rpp, cpp;
    Grp all;
    Dist rows, cols;
    Lay rl, cl;
    OK(DRI_Globaldata_create(2, ext, DRI_FLOAT, &g));
    OK(DRI_Partition_create(2, rp, &rpp));
    OK(DRI_Partition_create(2, cp, &cpp));
    OK(DRI_Group_create(world(), 0, nullptr, &all));
    OK(DRI_Distribution_create(g, rpp, all, &rows));
    OK(DRI_Distribution_create(g, cpp, all, &cols));
    OK(DRI_Layout_create(2, rm, nullptr, &rl));
    OK(DRI_Layout_create(2, cm, nullptr, &cl));
    DRI_Blockinfo si{}, ri{};
    OK(DRI_Blockinfo_get(rows, rl, &si));
    OK(DRI_Blockinfo_get(cols, cl, &ri));
    float token[2] = {0, 0};
    void* sb[1] = {&token[0]};
    void* rb[1] = {&token[1]};
    const DRI_Index ss[1] = {si.bytes}, rs[1] = {ri.bytes};
    Xfer t;
    OK(DRI_Transfer_create("huge", &t));
    OK(DRI_Transfer_set_strategy(t, DRI_STRATEGY_P2P));
    OK(DRI_Transfer_send(t, rows, rl, 1, sb, ss));
    OK(DRI_Transfer_recv(t, cols, cl, 1, rb, rs));
    EXPECT_CODE_ALL(DRI_Transfer_commit(t), DRI_ERR_NO_MEMORY);
}

// --- MPI failures inside DRI_Do ----------------------------------------------
// The library calls MPI through its public names; this executable defines
// some of them (the MPI profiling interface) and, when armed, makes the next
// call of a family fail with MPI_ERR_OTHER without doing anything, as a
// failing MPI would. Every rank arms the same family, so no rank waits for
// a peer that gave up.

namespace {
const char* g_fail = nullptr; // the family to fail next ("MPI_Isend" covers MPI_Isend_c)

bool should_fail(const char* call) {
    if (!g_fail || std::strncmp(call, g_fail, std::strlen(g_fail)) != 0) return false;
    g_fail = nullptr;
    return true;
}
} // namespace

extern "C" {
int MPI_Ialltoallw(const void* sb, const int sc[], const int sd[], const MPI_Datatype st[],
                   void* rb, const int rc[], const int rd[], const MPI_Datatype rt[], MPI_Comm comm,
                   MPI_Request* req) {
    if (should_fail("MPI_Ialltoallw")) return MPI_ERR_OTHER;
    return PMPI_Ialltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
}
int MPI_Ialltoallv(const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb,
                   const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm,
                   MPI_Request* req) {
    if (should_fail("MPI_Ialltoallv")) return MPI_ERR_OTHER;
    return PMPI_Ialltoallv(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
}
int MPI_Waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
    if (should_fail("MPI_Waitany")) return MPI_ERR_OTHER;
    return PMPI_Waitany(n, reqs, index, status);
}
int MPI_Isend(const void* b, int n, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
              MPI_Request* req) {
    if (should_fail("MPI_Isend")) return MPI_ERR_OTHER;
    return PMPI_Isend(b, n, t, dest, tag, comm, req);
}
#if MPI_VERSION >= 4
int MPI_Ialltoallv_c(const void* sb, const MPI_Count sc[], const MPI_Aint sd[], MPI_Datatype st,
                     void* rb, const MPI_Count rc[], const MPI_Aint rd[], MPI_Datatype rt,
                     MPI_Comm comm, MPI_Request* req) {
    if (should_fail("MPI_Ialltoallv_c")) return MPI_ERR_OTHER;
    return PMPI_Ialltoallv_c(sb, sc, sd, st, rb, rc, rd, rt, comm, req);
}
int MPI_Isend_c(const void* b, MPI_Count n, MPI_Datatype t, int dest, int tag, MPI_Comm comm,
                MPI_Request* req) {
    if (should_fail("MPI_Isend_c")) return MPI_ERR_OTHER;
    return PMPI_Isend_c(b, n, t, dest, tag, comm, req);
}
#endif
}

namespace {

// Commits the corner turn with `strategy`, checks one good frame, then makes
// `family` fail on every rank inside DRI_Do (blocking or start): DRI_ERR_MPI
// everywhere, the transfer refuses further use, destroying it does not hang,
// and a new transfer works.
void mpi_failure(DRI_Strategy strategy, const char* family, bool nonblocking) {
    Turn turn;
    if (strategy == DRI_STRATEGY_SHARED) {
        turn.use_shared();
        strategy =
            static_cast<DRI_Strategy>(dri::test::single_copy_strategy()); // HYBRID on several nodes
    }
    {
        Xfer t;
        OK(DRI_Transfer_create("fails", &t));
        OK(DRI_Transfer_set_strategy(t, strategy));
        OK(turn.send(t));
        OK(turn.recv(t));
        OK(DRI_Transfer_commit(t));
        turn.check_one_frame(t);
        g_fail = family;
        const int rc = nonblocking ? DRI_Do_start(t) : DRI_Do(t);
        CHECK_MESSAGE(g_fail == nullptr, family << " was never called");
        g_fail = nullptr;
        EXPECT_CODE_ALL(rc, DRI_ERR_MPI);
        CHECK(std::string(DRI_Last_error_message()).find(family) != std::string::npos);
        EXPECT_CODE(DRI_Do(t), DRI_ERR_STATE);
        CHECK(std::string(DRI_Last_error_message()).find("unusable") != std::string::npos);
    } // destroyed here: must not wait for messages that were never sent
    Xfer again;
    OK(DRI_Transfer_create("fails", &again));
    OK(DRI_Transfer_set_strategy(again, strategy));
    OK(turn.send(again));
    OK(turn.recv(again));
    OK(DRI_Transfer_commit(again));
    turn.fill(1);
    OK(DRI_Do(again));
    CHECK(turn.wrong(1) == 0);
}

} // namespace

TEST_CASE("DRI_ERR_MPI: a failing MPI call inside DRI_Do, every strategy") {
    SUBCASE("alltoallw, blocking (the non-blocking collective, waited for)") {
        mpi_failure(DRI_STRATEGY_ALLTOALLW, "MPI_Ialltoallw", false);
    }
    SUBCASE("alltoallw, start") {
        mpi_failure(DRI_STRATEGY_ALLTOALLW, "MPI_Ialltoallw", true);
    }
    SUBCASE("packed") {
        mpi_failure(DRI_STRATEGY_PACKED, "MPI_Ialltoallv", false);
    }
    if (world_size() >= 2) {
        SUBCASE("p2p, blocking") {
            mpi_failure(DRI_STRATEGY_P2P, "MPI_Isend", false);
        }
        SUBCASE("p2p, start") {
            mpi_failure(DRI_STRATEGY_P2P, "MPI_Isend", true);
        }
        SUBCASE("shared, the ready message, blocking") {
            mpi_failure(DRI_STRATEGY_SHARED, "MPI_Isend", false);
        }
        SUBCASE("shared, the ready message, start") {
            mpi_failure(DRI_STRATEGY_SHARED, "MPI_Isend", true);
        }
        SUBCASE("shared, waiting") {
            mpi_failure(DRI_STRATEGY_SHARED, "MPI_Waitany", false);
        }
    }
}

TEST_CASE("DRI_ERR_MPI: a DRI-1.0 role whose frame failed while waiting can still be destroyed") {
    if (world_size() < 2) return; // one rank waits for nothing
    Turn turn;
    DRI_Reorg send = nullptr, recv = nullptr;
    OK(DRI_Reorg_create(DRI_SEND, "reorg fails", turn.rows, turn.row_major, 1, &send));
    OK(DRI_Reorg_create(DRI_RECV, "reorg fails", turn.cols, turn.col_major, 1, &recv));
    OK(DRI_Reorg_connect(send));
    OK(DRI_Reorg_connect(recv));
    void* b = nullptr;
    OK(DRI_Reorg_get_sendbuf(send, &b));
    OK(DRI_Reorg_put_sendbuf(send, &b));
    // Every rank's sends are out when its wait fails: the abandoned frame's
    // messages stay unmatched on the freed communicator (UCX reports them as
    // unexpected at finalize), which is what giving up a frame means.
    g_fail = "MPI_Waitany";
    const int rc = DRI_Reorg_get_recvbuf(recv, &b);
    CHECK_MESSAGE(g_fail == nullptr, "MPI_Waitany was never called");
    g_fail = nullptr;
    EXPECT_CODE_ALL(rc, DRI_ERR_MPI);
    EXPECT_CODE(DRI_Reorg_get_sendbuf(send, &b), DRI_ERR_STATE); // the transfer is unusable
    OK(DRI_Reorg_destroy(&send)); // nothing is in flight any more: no wait, no error
    OK(DRI_Reorg_destroy(&recv));
}
