// The common corner turn in one collective call.
#include "mpi/interface.hpp"

namespace dri::detail {

using core::Index;

namespace {

// The two distributions and layouts of the corner turn over every process of
// comm. Collective; a local failure (bad extents, a bad type) is carried
// through the distribution's collective so that every process fails alike.
struct CornerTurnSides {
    std::shared_ptr<const DistributionImpl> rows, cols;
    std::shared_ptr<const LayoutImpl> row_major, col_major;
};

CornerTurnSides corner_turn_sides(MPI_Comm comm, Index nrows, Index ncols, core::ElementType type,
                                  const Status& pre) {
    require_initialized();
    CornerTurnSides s;
    std::shared_ptr<const GlobalDataImpl> gdo;
    Status st = pre;
    if (!st.failed()) st = capture([&] { gdo = make_globaldata({nrows, ncols}, type); });
    const auto rows_p = make_partition({core::DimPartition::block(), core::DimPartition::whole()});
    const auto cols_p = make_partition({core::DimPartition::whole(), core::DimPartition::block()});
    const auto group = make_group(comm, {});
    const std::string call = "the corner turn (the matrix shape or element type)";
    s.rows = make_distribution(gdo.get(), rows_p.get(), group, st, call);
    s.cols = make_distribution(gdo.get(), cols_p.get(), group, {}, call);
    s.row_major = make_layout(core::Layout::packed(2));
    s.col_major = make_layout(core::Layout::ordered({1, 0}));
    return s;
}

} // namespace

CornerTurnBlocks corner_turn_blocks(MPI_Comm comm, Index nrows, Index ncols, core::ElementType type,
                                    const Status& pre) {
    const CornerTurnSides s = corner_turn_sides(comm, nrows, ncols, type, pre);
    return {block_info(*s.rows, *s.row_major, s.rows->group->my_index),
            block_info(*s.cols, *s.col_major, s.cols->group->my_index)};
}

std::shared_ptr<TransferImpl> corner_turn(MPI_Comm comm, Index nrows, Index ncols,
                                          core::ElementType type,
                                          std::span<const std::span<std::byte>> send_buffers,
                                          std::span<const std::span<std::byte>> recv_buffers,
                                          const Status& pre) {
    const CornerTurnSides s = corner_turn_sides(comm, nrows, ncols, type, pre);
    // A commit matches names only among the transfers passed to it, and this
    // one commits exactly one transfer on every process of comm: one fixed
    // name matches, whatever calls came before on whatever communicators
    // (a per-process call counter did not: a call on a sub-communicator
    // set the counters of its members apart from the others').
    auto t = make_transfer("dri corner turn");
    // Buffer errors are local: they go into the commit's agreement.
    const Status declared = capture([&] {
        declare_role(*t, RoleKind::send, s.rows, *s.row_major, send_buffers);
        declare_role(*t, RoleKind::recv, s.cols, *s.col_major, recv_buffers);
    });
    TransferImpl* p = t.get();
    commit(comm, std::span<TransferImpl* const>(&p, 1), declared);
    return t;
}

} // namespace dri::detail
