// The DRI-1.0 layer (dri/dri10.h): predefined objects, the get/put frame
// protocol with exact data, and every out-of-order call refused with a code.
#include "dri/dri10.h"
#include "mpi/shared_memory.hpp"
#include "mpi_world.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

using dri::test::same_everywhere;
using dri::test::world;
using dri::test::world_rank;
using dri::test::world_size;

#define OK(call) REQUIRE_MESSAGE((call) == DRI_SUCCESS, #call ": " << DRI_Last_error_message())
#define CODE(call, code) CHECK_MESSAGE((call) == (code), #call ": " << DRI_Last_error_message())

namespace {

// The corner turn's extents: 10 x 6, or more where there are more ranks,
// so that every rank owns a row and a column.
DRI_Index turn_rows() {
    return std::max<DRI_Index>(10, world_size());
}
DRI_Index turn_cols() {
    return std::max<DRI_Index>(6, world_size());
}

// An int32 corner turn over all ranks with the DRI-1.0 names.
struct Clique {
    DRI_Globaldata g = nullptr;
    DRI_Group all = nullptr;
    DRI_Distribution rows = nullptr, cols = nullptr;
    DRI_Reorg send = nullptr, recv = nullptr;
    DRI_Blockinfo sb{}, rb{};
    explicit Clique(const char* name, int nbufs = 2) {
        const DRI_Index ext[2] = {turn_rows(), turn_cols()};
        OK(DRI_Globaldata_create(2, ext, DRI_INT32, &g));
        OK(DRI_Group_create(world(), 0, nullptr, &all));
        OK(DRI_Distribution_create(g, DRI_PARTITION_BW, all, &rows));
        OK(DRI_Distribution_create(g, DRI_PARTITION_WB, all, &cols));
        OK(DRI_Reorg_create(DRI_SEND, name, rows, DRI_LAYOUT_PACKED_01, nbufs, &send));
        OK(DRI_Reorg_create(DRI_RECV, name, cols, DRI_LAYOUT_PACKED_10, nbufs, &recv));
        OK(DRI_Reorg_blockinfo(send, &sb));
        OK(DRI_Reorg_blockinfo(recv, &rb));
    }
    ~Clique() {
        if (send) DRI_Reorg_destroy(&send);
        if (recv) DRI_Reorg_destroy(&recv);
        DRI_Distribution_destroy(&rows);
        DRI_Distribution_destroy(&cols);
        DRI_Group_destroy(&all);
        DRI_Globaldata_destroy(&g);
    }
    void fill(void* buf, int frame) const {
        auto* s = static_cast<int*>(buf);
        for (DRI_Index i = 0; i < sb.local_extent[0]; ++i)
            for (DRI_Index j = 0; j < turn_cols(); ++j)
                s[i * turn_cols() + j] =
                    static_cast<int>((sb.owned_first[0] + i) * 100 + j + frame * 10000);
    }
    long wrong(const void* buf, int frame) const {
        const auto* r = static_cast<const int*>(buf);
        long bad = 0;
        for (DRI_Index j = 0; j < rb.local_extent[1]; ++j)
            for (DRI_Index i = 0; i < turn_rows(); ++i)
                bad += r[j * turn_rows() + i] !=
                       static_cast<int>(i * 100 + rb.owned_first[1] + j + frame * 10000);
        return bad;
    }
};

} // namespace

TEST_CASE("DRI-1.0: predefined partitions and layouts are objects that cannot be destroyed") {
    DRI_Partition p = DRI_PARTITION_WB;
    CODE(DRI_Partition_destroy(&p), DRI_ERR_ARG);
    CHECK(p == DRI_PARTITION_WB);
    DRI_Layout l = DRI_LAYOUT_PACKED_10;
    CODE(DRI_Layout_destroy(&l), DRI_ERR_ARG);
    // A 2-D partition on 3-D data is refused on every rank.
    const DRI_Index ext[3] = {4, 4, 4};
    DRI_Globaldata g = nullptr;
    DRI_Group all = nullptr;
    DRI_Distribution d = nullptr;
    OK(DRI_Globaldata_create(3, ext, DRI_FLOAT, &g));
    OK(DRI_Group_create(world(), 0, nullptr, &all));
    const int rc = DRI_Distribution_create(g, DRI_PARTITION_WB, all, &d);
    CHECK(rc == DRI_ERR_PARTITION);
    CHECK(same_everywhere(rc));
    OK(DRI_Distribution_create(g, DRI_PARTITION_WBB, all, &d));
    DRI_Blockinfo bi{};
    OK(DRI_Blockinfo_get(d, DRI_LAYOUT_PACKED_210, &bi));
    CHECK(bi.strides[0] == 1); // dimension 0 contiguous
    DRI_Distribution_destroy(&d);
    DRI_Group_destroy(&all);
    DRI_Globaldata_destroy(&g);
}

TEST_CASE("DRI-1.0: frames through get/put with exact data, one buffer per ring") {
    Clique c("frames", 1);
    OK(DRI_Reorg_connect(c.send));
    OK(DRI_Reorg_connect(c.recv));
    for (int f = 0; f < 4; ++f) {
        void* b = nullptr;
        OK(DRI_Reorg_get_sendbuf(c.send, &b));
        // The library's rings are node shared memory: the single copy applies.
        CHECK(dri::detail::shared_find_own(static_cast<const std::byte*>(b), 1) != nullptr);
        c.fill(b, f);
        OK(DRI_Reorg_put_sendbuf(c.send, &b));
        CHECK(b == nullptr);
        OK(DRI_Reorg_get_recvbuf(c.recv, &b));
        CHECK(c.wrong(b, f) == 0);
        OK(DRI_Reorg_put_recvbuf(c.recv, &b));
    }
    OK(DRI_Reorg_disconnect(c.send));
    OK(DRI_Reorg_disconnect(c.recv));
}

TEST_CASE("DRI-1.0: calls out of order are refused with DRI_ERR_STATE or DRI_ERR_ARG") {
    Clique c("order");
    void* b = nullptr;
    CODE(DRI_Reorg_get_sendbuf(c.send, &b), DRI_ERR_STATE); // not connected
    OK(DRI_Reorg_connect(c.send));
    CODE(DRI_Reorg_connect(c.send), DRI_ERR_STATE);         // twice
    OK(DRI_Reorg_connect(c.recv));                          // commits
    CODE(DRI_Reorg_get_recvbuf(c.send, &b), DRI_ERR_ARG);   // a send role
    CODE(DRI_Reorg_get_recvbuf(c.recv, &b), DRI_ERR_STATE); // nothing put yet
    OK(DRI_Reorg_get_sendbuf(c.send, &b));
    CODE(DRI_Reorg_get_sendbuf(c.send, &b), DRI_ERR_STATE); // not put back
    void* other = &c;
    CODE(DRI_Reorg_put_sendbuf(c.send, &other), DRI_ERR_STATE); // not the one handed out
    c.fill(b, 0);
    OK(DRI_Reorg_put_sendbuf(c.send, &b));
    CODE(DRI_Reorg_get_sendbuf(c.send, &b), DRI_ERR_STATE); // receive the frame first
    OK(DRI_Reorg_get_recvbuf(c.recv, &b));
    CHECK(c.wrong(b, 0) == 0);
    CODE(DRI_Reorg_get_recvbuf(c.recv, &b), DRI_ERR_STATE); // not put back
    OK(DRI_Reorg_put_recvbuf(c.recv, &b));
    OK(DRI_Reorg_disconnect(c.send));
    CODE(DRI_Reorg_get_sendbuf(c.send, &b), DRI_ERR_STATE); // disconnected
    CODE(DRI_Reorg_disconnect(c.send), DRI_ERR_STATE);
    OK(DRI_Reorg_disconnect(c.recv));
    DRI_Reorg stale = c.send;
    OK(DRI_Reorg_destroy(&c.send));
    CODE(DRI_Reorg_connect(stale), DRI_ERR_HANDLE);
    CODE(DRI_Reorg_create(DRI_SEND, "x", c.rows, DRI_LAYOUT_PACKED_01, 0, &stale),
         DRI_ERR_BUFFER_COUNT);
}

TEST_CASE("DRI-1.0: a pipeline of producers and consumers") {
    const int n = world_size(), me = world_rank();
    if (n < 2) return;
    const int np = n / 2;
    std::vector<int> prod, cons;
    for (int r = 0; r < n; ++r)
        (r < np ? prod : cons).push_back(r);
    const DRI_Index ext[2] = {turn_rows(), turn_cols()};
    DRI_Globaldata g = nullptr;
    DRI_Group pg = nullptr, cg = nullptr;
    DRI_Distribution d = nullptr;
    DRI_Reorg r = nullptr;
    OK(DRI_Globaldata_create(2, ext, DRI_INT32, &g));
    OK(DRI_Group_create(world(), np, prod.data(), &pg));
    OK(DRI_Group_create(world(), n - np, cons.data(), &cg));
    const bool producer = me < np;
    OK(DRI_Distribution_create(g, producer ? DRI_PARTITION_BW : DRI_PARTITION_WB,
                               producer ? pg : cg, &d));
    OK(DRI_Reorg_create(producer ? DRI_SEND : DRI_RECV, "pipe", d,
                        producer ? DRI_LAYOUT_PACKED_01 : DRI_LAYOUT_PACKED_10, 2, &r));
    DRI_Blockinfo bi{};
    OK(DRI_Reorg_blockinfo(r, &bi));
    OK(DRI_Reorg_connect(r));
    long wrong = 0;
    for (int f = 0; f < 5; ++f) {
        void* b = nullptr;
        if (producer) {
            OK(DRI_Reorg_get_sendbuf(r, &b));
            auto* s = static_cast<int*>(b);
            for (DRI_Index i = 0; i < bi.local_extent[0]; ++i)
                for (DRI_Index j = 0; j < ext[1]; ++j)
                    s[i * ext[1] + j] = static_cast<int>((bi.owned_first[0] + i) * 100 + j + f);
            OK(DRI_Reorg_put_sendbuf(r, &b));
        } else {
            OK(DRI_Reorg_get_recvbuf(r, &b));
            const auto* v = static_cast<const int*>(b);
            for (DRI_Index j = 0; j < bi.local_extent[1]; ++j)
                for (DRI_Index i = 0; i < ext[0]; ++i)
                    wrong +=
                        v[j * ext[0] + i] != static_cast<int>(i * 100 + bi.owned_first[1] + j + f);
            OK(DRI_Reorg_put_recvbuf(r, &b));
        }
    }
    CHECK(wrong == 0);
    OK(DRI_Reorg_disconnect(r));
    OK(DRI_Reorg_destroy(&r));
    DRI_Distribution_destroy(&d);
    DRI_Group_destroy(&pg);
    DRI_Group_destroy(&cg);
    DRI_Globaldata_destroy(&g);
}
