"""Combine on receive from Python (Transfer.recv's combine=, Transfer.combine):
the receive arrays become op(before, arriving) exactly, zero-padded halo rows
combining 0, with blocking and non-blocking runs, and the refusals raised on
every rank."""

import numpy as np
import pytest

import dri
from oracle import block_range, frame, halo_rows, take_rows

SHAPE = (10, 6)
NUMPY_OP = {dri.Combine.SUM: np.add, dri.Combine.MAX: np.maximum,
            dri.Combine.MIN: np.minimum}


def packed():
    return dri.Layout.packed(2)


def before(shape, dtype, rank):
    """What a receive array holds before a run: small values of both signs
    (every sum exact), distinct per rank."""
    values = (np.arange(np.prod(shape)).reshape(shape) * 7 + rank * 3) % 23 - 11
    return values.astype(dtype)


@pytest.mark.parametrize("op", [dri.Combine.SUM, dri.Combine.MAX, dri.Combine.MIN])
@pytest.mark.parametrize("dtype", [np.int16, np.float64])
@pytest.mark.parametrize("strategy", [dri.Strategy.AUTO, dri.Strategy.P2P,
                                      dri.Strategy.ALLTOALLW])
def test_combine_into_halo_rows(comm, op, dtype, strategy):
    """Column blocks to row blocks with 1 zero-padded row before and 2
    after: each stored cell combines the element (or 0) it receives."""
    data = dri.GlobalData(SHAPE, dtype)
    cols = dri.Distribution(data, "whole,block", comm)
    rows = dri.Distribution(data, "block~1:2:zero,whole", comm)
    src, dst = cols.empty(packed(), 1), rows.zeros(packed(), 2)
    c0, c1 = block_range(SHAPE[1], comm.size, comm.rank)
    first, last = block_range(SHAPE[0], comm.size, comm.rank)
    with dri.Transfer("combine") as t:
        t.strategy(strategy)
        t.send(cols, packed(), src)
        t.recv(rows, packed(), dst, combine=op)
        t.commit()
        for k in range(3):
            full = frame(SHAPE, k, dtype)
            src[0][...] = full[:, c0:c1 + 1]
            c = dst[k % 2]
            c[...] = before(c.shape, dtype, comm.rank + k)
            want = NUMPY_OP[op](c.copy(),
                                take_rows(full, halo_rows(SHAPE[0], first, last, 1, 2, "zero")))
            if k == 0:
                t.execute()
            else:
                t.start()
                if k == 1:
                    t.wait()
                else:
                    while not t.test():
                        pass
            np.testing.assert_array_equal(c, want)


def test_complex_sum_and_method(comm):
    """SUM on complex numbers, chosen with the method after recv."""
    dtype = np.complex128
    data = dri.GlobalData(SHAPE, dtype)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    src, dst = rows.empty(packed(), 1), cols.empty(dri.Layout.ordered([1, 0]), 1)
    r0, r1 = block_range(SHAPE[0], comm.size, comm.rank)
    c0, c1 = block_range(SHAPE[1], comm.size, comm.rank)
    with dri.Transfer("complex") as t:
        t.send(rows, packed(), src)
        t.recv(cols, dri.Layout.ordered([1, 0]), dst)
        t.combine(dri.Combine.SUM)
        t.commit()
        full = frame(SHAPE, 4, dtype)
        src[0][...] = full[r0:r1 + 1]
        dst[0][...] = 1 + 2j
        t.execute()
        np.testing.assert_array_equal(dst[0], full[:, c0:c1 + 1] + (1 + 2j))


def test_refusals(comm):
    """MAX on complex numbers fails the commit on every rank (ERR_TYPE);
    receivers that differ fail it with ERR_INCONSISTENT; a sender alone
    cannot choose."""
    data = dri.GlobalData(SHAPE, np.complex64)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    src, dst = rows.empty(packed(), 1), cols.empty(packed(), 1)
    with dri.Transfer("refused") as t:
        t.send(rows, packed(), src)
        with pytest.raises(dri.Error) as e:
            t.combine(dri.Combine.SUM)
        assert e.value.code == dri.ERR_STATE
        t.recv(cols, packed(), dst, combine=dri.Combine.MAX)
        with pytest.raises(dri.Error) as e:
            t.commit()
        assert e.value.code == dri.ERR_TYPE
    if comm.size < 2:
        return
    with dri.Transfer("differ") as t:
        t.send(rows, packed(), src)
        last = comm.rank == comm.size - 1
        t.recv(cols, packed(), dst, combine=dri.Combine.REPLACE if last else dri.Combine.SUM)
        with pytest.raises(dri.Error) as e:
            t.commit()
        assert e.value.code == dri.ERR_INCONSISTENT
