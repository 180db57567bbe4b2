"""Overlap (halo) cells under every edge policy, and block-cyclic
distributions, against the NumPy oracle."""

import numpy as np
import pytest

import dri
from oracle import block_range, cyclic_rows, frame, halo_rows, take_rows


def packed():
    return dri.Layout.packed(2)


@pytest.mark.parametrize("edge", ["truncate", "zero", "replicate", "wrap"])
def test_receive_halo(comm, edge):
    """Receivers hold row blocks with 1 row before and 2 after; the senders
    hold column blocks with halo cells of their own, which are never sent."""
    shape, dtype = (10, 6), np.float64
    data = dri.GlobalData(shape, dtype)
    cols = dri.Distribution(data, "whole,block~1:1", comm)
    rows = dri.Distribution(data, "block~1:2:%s,whole" % edge, comm)
    src, dst = cols.empty(packed(), 1), rows.zeros(packed(), 1)
    sent = cols.block(packed())
    src[0][...] = -1.0  # the senders' halo: must never arrive anywhere
    c0, c1 = block_range(shape[1], comm.size, comm.rank)
    left = c0 - sent.stored_first[1]
    src[0][:, left:left + c1 - c0 + 1] = frame(shape, 0, dtype)[:, c0:c1 + 1]
    t = dri.Transfer("halo")
    t.send(cols, packed(), src)
    t.recv(rows, packed(), dst)
    t.commit()
    t.execute()
    first, last = block_range(shape[0], comm.size, comm.rank)
    expected = take_rows(frame(shape, 0, dtype),
                         halo_rows(shape[0], first, last, 1, 2, edge))
    np.testing.assert_array_equal(dst[0], expected)


@pytest.mark.parametrize("b", [1, 2, 3])
def test_blocks_to_block_cyclic(comm, b):
    """2-D blocks dealt into block-cyclic rows: each process stores its
    stripes one after the other."""
    shape, dtype = (13, 9), np.int64
    data = dri.GlobalData(shape, dtype)
    blocks = dri.Distribution(data, "block,block", comm)
    cyclic = dri.Distribution(data, "cyclic(%d),whole" % b, comm)
    info = blocks.block(packed())
    src, dst = blocks.empty(packed(), 2), cyclic.empty(packed(), 2)
    t = dri.Transfer("cyclic")
    t.send(blocks, packed(), src)
    t.recv(cyclic, packed(), dst)
    t.commit()
    mine = cyclic_rows(shape[0], b, comm.size, comm.rank)
    for k in range(3):
        full = frame(shape, k, dtype)
        src[k % 2][...] = full[info.owned_first[0]:info.owned_last[0] + 1,
                               info.owned_first[1]:info.owned_last[1] + 1]
        t.execute()
        np.testing.assert_array_equal(dst[k % 2], full[mine, :])


def test_block_cyclic_to_columns(comm):
    """And back: block-cyclic rows (column-major storage) to column blocks."""
    shape, dtype = (11, 8), np.complex64
    data = dri.GlobalData(shape, dtype)
    cyclic = dri.Distribution(data, "cyclic(2),whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    col_major = dri.Layout.ordered([1, 0])
    src, dst = cyclic.empty(col_major, 1), cols.empty(packed(), 1)
    full = frame(shape, 5, dtype)
    src[0][...] = full[cyclic_rows(shape[0], 2, comm.size, comm.rank), :]
    t = dri.Transfer("from cyclic")
    t.send(cyclic, col_major, src)
    t.recv(cols, packed(), dst)
    t.commit()
    t.execute()
    c0, c1 = block_range(shape[1], comm.size, comm.rank)
    np.testing.assert_array_equal(dst[0], full[:, c0:c1 + 1])
