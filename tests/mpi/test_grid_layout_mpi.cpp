// Process grids numbered column-major (BLACS 'C' order) as well as
// row-major, on either side of a transfer, through every strategy and every
// kind of send memory: every byte of every receive buffer is checked against
// the oracle, whose grid coordinates are held to the column-major formula.
#include "mpi_world.hpp"
#include "scenario.hpp"

#include "core/spec.hpp"

#include <doctest/doctest.h>

namespace {

using dri::core::GridOrder;
using Memory = dri::test::Scenario::Memory;

const std::vector<dri::Strategy> every_strategy{dri::Strategy::automatic, dri::Strategy::alltoallw,
                                                dri::Strategy::packed,    dri::Strategy::p2p,
                                                dri::Strategy::shared,    dri::Strategy::hybrid,
                                                dri::Strategy::nodes,     dri::Strategy::measure};

std::vector<int> reversed_ranks() {
    std::vector<int> r = dri::test::range_of_ranks(0, dri::test::world_size() - 1);
    std::reverse(r.begin(), r.end());
    return r;
}

// Runs `sc` with every strategy and send memory; CHECKs every rank's data.
void run_everywhere(dri::test::Scenario sc) {
    for (dri::Strategy strategy : every_strategy)
        for (Memory memory : {Memory::heap, Memory::owned}) {
            sc.strategy = strategy;
            sc.memory = memory;
            INFO("strategy " << static_cast<int>(strategy) << ", memory "
                             << static_cast<int>(memory));
            const dri::test::ScenarioResult res = dri::test::run_scenario(sc);
            CHECK_MESSAGE(res.error.empty(), res.error);
            CHECK(dri::test::all_ok(res));
        }
}

} // namespace

TEST_CASE("grid order: the API's coordinates are the column-major formula's") {
    const int p = dri::test::world_size();
    const dri::GlobalData gd({12, 10}, dri::Type::float32);
    const dri::Partition part = dri::Partition::parse("block,block");
    const dri::Group all(dri::test::world(), dri::test::range_of_ranks(0, p - 1));
    const dri::Distribution col(gd, part, all, dri::GridOrder::column_major);
    const dri::Distribution row(gd, part, all);
    CHECK(col.grid_order() == dri::GridOrder::column_major);
    CHECK(row.grid_order() == dri::GridOrder::row_major);
    const std::vector<int> g = col.grid();
    const dri::Layout packed = dri::Layout::packed(2);
    for (int i = 0; i < p; ++i) {
        CHECK(col.block(packed, i).coords == std::vector<int>{i % g[0], i / g[0]});
        CHECK(row.block(packed, i).coords == std::vector<int>{i / g[1], i % g[1]});
    }
    // The oracle's distribution numbers its grid alike.
    const dri::core::Distribution core_col(
        dri::core::Shape({12, 10},
                         dri::core::ElementType::predefined(dri::core::ElemKind::float32)),
        dri::core::parse_partition("block,block"), p, GridOrder::column_major);
    for (int i = 0; i < p; ++i)
        CHECK(core_col.coords(i) == col.block(packed, i).coords);
}

TEST_CASE("grid order: either order on either side delivers every cell, every strategy") {
    dri::test::Scenario sc;
    sc.shape = dri::core::Shape({13, 10},
                                dri::core::ElementType::predefined(dri::core::ElemKind::float64));
    sc.send_part = dri::core::parse_partition("block,block");
    sc.recv_part = dri::core::parse_partition("cyclic(2),block~1:1:wrap");
    sc.send_layout = dri::core::Layout::packed(2);
    sc.recv_layout = dri::core::Layout::ordered({1, 0}, {0, 1});
    sc.send_ranks = dri::test::range_of_ranks(0, dri::test::world_size() - 1);
    sc.recv_ranks = reversed_ranks();
    sc.nbuf_s = 2;
    sc.nbuf_r = 1;
    sc.frames = 2;
    for (GridOrder so : {GridOrder::row_major, GridOrder::column_major})
        for (GridOrder ro : {GridOrder::row_major, GridOrder::column_major}) {
            if (so == GridOrder::row_major && ro == GridOrder::row_major) continue;
            sc.send_order = so;
            sc.recv_order = ro;
            sc.name = "grid order " + dri::core::to_string(so) + " -> " + dri::core::to_string(ro);
            INFO(sc.name);
            run_everywhere(sc);
        }
}

// Each process stores its block in its own layout (issue 30 item 4): no two
// neighbours share padding or order, on either side, so every strategy must
// read and write each peer's block with that peer's own strides.
TEST_CASE("per-process layouts: every rank its own padding and order, every strategy") {
    using dri::core::Layout;
    const int p = dri::test::world_size();
    dri::test::Scenario sc;
    sc.name = "per-process layouts";
    sc.shape = dri::core::Shape({13, 10},
                                dri::core::ElementType::predefined(dri::core::ElemKind::float64));
    sc.send_part = dri::core::parse_partition("block,block");
    sc.recv_part = dri::core::parse_partition("cyclic(2),block~1:1:wrap");
    sc.send_ranks = dri::test::range_of_ranks(0, p - 1);
    sc.recv_ranks = reversed_ranks();
    for (int i = 0; i < p; ++i) {
        const dri::core::Index pad = i + 1;
        sc.send_layouts.push_back(i % 3 == 0   ? Layout::packed(2)
                                  : i % 3 == 1 ? Layout::ordered({1, 0}, {pad, 0})
                                               : Layout::ordered({0, 1}, {0, pad}));
        sc.recv_layouts.push_back(i % 2 == 0 ? Layout::ordered({1, 0}, {pad, 2})
                                             : Layout::ordered({0, 1}, {1, pad}));
    }
    sc.send_layout = sc.send_layouts.front();
    sc.recv_layout = sc.recv_layouts.front();
    sc.nbuf_s = 2;
    sc.nbuf_r = 1;
    sc.frames = 2;
    run_everywhere(sc);
    // The same with a column-major grid on the receiving side.
    sc.recv_order = GridOrder::column_major;
    run_everywhere(sc);
}
