"""Process grids numbered column-major (BLACS 'C' order, grid_order=
dri.GridOrder.COLUMN_MAJOR): the coordinates of each group index, and a
transfer from a column-major grid to a row-major one with exact data."""

import numpy as np
import pytest

import dri
from oracle import block_range, frame


def test_column_major_coordinates(comm):
    data = dri.GlobalData((12, 10), np.float32)
    col = dri.Distribution(data, "block,block", comm,
                           grid_order=dri.GridOrder.COLUMN_MAJOR)
    row = dri.Distribution(data, "block,block", comm)
    assert col.grid_order == dri.GridOrder.COLUMN_MAJOR
    assert row.grid_order == dri.GridOrder.ROW_MAJOR
    g = col.grid
    packed = dri.Layout.packed(2)
    for i in range(comm.size):
        assert list(col.block(packed, i).coords) == [i % g[0], i // g[0]]
        assert list(row.block(packed, i).coords) == [i // g[1], i % g[1]]


def test_different_orders_on_the_members_raise_everywhere(comm):
    if comm.size < 2:
        pytest.skip("needs 2 processes")
    data = dri.GlobalData((12, 10), np.float32)
    order = (dri.GridOrder.COLUMN_MAJOR if comm.rank == 0
             else dri.GridOrder.ROW_MAJOR)
    with pytest.raises(dri.Error) as e:
        dri.Distribution(data, "block,block", comm, grid_order=order)
    assert e.value.code == dri.ERR_INCONSISTENT


@pytest.mark.parametrize("strategy", [dri.Strategy.AUTO, dri.Strategy.P2P,
                                      dri.Strategy.PACKED,
                                      dri.Strategy.ALLTOALLW])
def test_column_major_grid_to_rows(comm, strategy):
    shape = (9, 14)
    dtype = np.float64
    data = dri.GlobalData(shape, dtype)
    src_dist = dri.Distribution(data, "block,block", comm,
                                grid_order=dri.GridOrder.COLUMN_MAJOR)
    dst_dist = dri.Distribution(data, "block,whole", comm)
    g = src_dist.grid
    src = src_dist.empty(dri.Layout.packed(2), 1)
    dst = dst_dist.empty(dri.Layout.ordered([1, 0]), 1)
    # Computed from the column-major rule, not asked of dri.
    c0, c1 = comm.rank % g[0], comm.rank // g[0]
    r0, r1 = block_range(shape[0], g[0], c0), block_range(shape[1], g[1], c1)
    with dri.Transfer("column-major grid") as t:
        t.send(src_dist, dri.Layout.packed(2), src)
        t.recv(dst_dist, dri.Layout.ordered([1, 0]), dst)
        t.strategy(strategy)
        t.commit()
        for k in range(2):
            full = frame(shape, k, dtype)
            src[0][...] = full[r0[0]:r0[1] + 1, r1[0]:r1[1] + 1]
            t.execute()
            first, last = block_range(shape[0], comm.size, comm.rank)
            np.testing.assert_array_equal(dst[0], full[first:last + 1, :])
