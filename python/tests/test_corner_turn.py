"""Corner turns from Python: exact data for every frame, every strategy, the
pipelined calls, node shared memory, records, padded layouts and bipartite
pipelines over rank lists."""

import numpy as np
import pytest

import dri
from oracle import block_range, frame



def ROWS():
    return dri.Layout.packed(2)


def COLS():
    return dri.Layout.ordered([1, 0])


def setup_turn(comm, shape, dtype, nbuf=2, send_layout=None):
    send_layout = send_layout or ROWS()
    data = dri.GlobalData(shape, dtype)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, dri.Partition("whole,block"), comm)
    return rows, cols, rows.empty(send_layout, nbuf), cols.empty(COLS(), nbuf)


def fill_rows(array, shape, k, comm):
    first, last = block_range(shape[0], comm.size, comm.rank)
    array[...] = frame(shape, k, array.dtype)[first:last + 1, :]


def expected_cols(shape, k, dtype, comm):
    first, last = block_range(shape[1], comm.size, comm.rank)
    return frame(shape, k, dtype)[:, first:last + 1]


@pytest.mark.parametrize("shape,strategy", [
    ((7, 5), dri.Strategy.AUTO), ((7, 5), dri.Strategy.P2P),
    ((7, 5), dri.Strategy.PACKED), ((7, 5), dri.Strategy.ALLTOALLW),
    ((64, 64), dri.Strategy.AUTO), ((64, 64), dri.Strategy.P2P),
    ((64, 64), dri.Strategy.PACKED), ((64, 64), dri.Strategy.ALLTOALLW),
    ((64, 64), dri.Strategy.NODES), ((8, 6), dri.Strategy.MEASURE)])
def test_corner_turn_exact(comm, shape, strategy):
    dtype = np.complex64
    rows, cols, src, dst = setup_turn(comm, shape, dtype)
    with dri.Transfer("turn") as t:
        t.send(rows, ROWS(), src)
        t.recv(cols, COLS(), dst)
        t.strategy(strategy)
        t.commit()
        assert t.committed and t.name == "turn"
        for k in range(5):
            assert t.current_send_buffer == k % 2
            assert t.current_recv_buffer == k % 2
            fill_rows(src[k % 2], shape, k, comm)
            t.execute()
            np.testing.assert_array_equal(dst[k % 2],
                                          expected_cols(shape, k, dtype, comm))
        assert t.send_buffers[0] is src[0] and t.recv_buffers[1] is dst[1]
        if strategy not in (dri.Strategy.AUTO, dri.Strategy.MEASURE):
            assert t.chosen_strategy == strategy


def test_start_wait_test_pipeline(comm):
    """Frame k moves while frame k + 1 is filled: start, then test() until
    done or wait()."""
    shape, dtype = (16, 12), np.float64
    rows, cols, src, dst = setup_turn(comm, shape, dtype, nbuf=3)
    t = dri.Transfer("pipelined")
    t.send(rows, ROWS(), src)
    t.recv(cols, COLS(), dst)
    t.commit()
    fill_rows(src[0], shape, 0, comm)
    for k in range(6):
        t.start()
        fill_rows(src[(k + 1) % 3], shape, k + 1, comm)
        if k % 2:
            while not t.test():
                pass
        else:
            t.wait()
        np.testing.assert_array_equal(dst[k % 3],
                                      expected_cols(shape, k, dtype, comm))
    t.close()


def single_copy_turn(comm, shape, rows, cols, src, frames):
    """Corner turns of the global `shape` from `src`, send arrays in node
    shared memory: AUTO picks the single copy, every frame exact."""
    dst = cols.empty(COLS(), len(src))
    with dri.Transfer("single copy") as t:
        t.send(rows, ROWS(), src)
        t.recv(cols, COLS(), dst)
        t.commit()
        if comm.size > 1:
            assert t.chosen_strategy in (dri.Strategy.SHARED,
                                         dri.Strategy.HYBRID)
        for k in range(frames):
            fill_rows(src[k % len(src)], shape, k, comm)
            t.execute()
            np.testing.assert_array_equal(
                dst[k % len(src)], expected_cols(shape, k, src[0].dtype, comm))


def test_shared_memory_ring(comm):
    """A ring on dri.SharedMemory blocks, freed explicitly afterwards."""
    shape, dtype = (24, 20), np.complex128
    data = dri.GlobalData(shape, dtype)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    mems = [dri.SharedMemory(rows.block(ROWS()).bytes) for _ in range(2)]
    src = [m.as_block(rows, ROWS()) for m in mems]
    assert src[0].shape == rows.block(ROWS()).shape
    single_copy_turn(comm, shape, rows, cols, src, 4)
    del src
    for m in mems:
        m.free()
        assert m.size == 0


def test_default_arrays_are_shared(comm):
    """Distribution.empty, dri.empty and dri.empty_like give node shared
    memory: the single copy with no other change; dri.zeros is zero-filled."""
    shape, dtype = (24, 20), np.float64
    data = dri.GlobalData(shape, dtype)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    block = rows.block(ROWS()).shape
    assert not dri.zeros(block, dtype).any()
    for src in (rows.empty(ROWS(), 2),
                [dri.empty(block, dtype) for _ in range(2)],
                [dri.empty_like(np.ones(block)) for _ in range(2)]):
        assert src[0].ctypes.data % 4096 == 0
        single_copy_turn(comm, shape, rows, cols, src, 3)


def test_record_elements(comm):
    """A structured dtype is a record: moved as opaque bytes."""
    rec = np.dtype([("id", "<i4"), ("x", "<f8")])
    shape = (6, 10)
    rows, cols, src, dst = setup_turn(comm, shape, rec, nbuf=1)
    assert src[0].dtype == rec
    full = np.zeros(shape, rec)
    full["id"] = np.arange(60).reshape(shape)
    full["x"] = full["id"] * 0.5
    first, last = block_range(shape[0], comm.size, comm.rank)
    src[0][...] = full[first:last + 1]
    t = dri.Transfer("records")
    t.send(rows, ROWS(), src)
    t.recv(cols, COLS(), dst)
    t.commit()
    t.execute()
    c0, c1 = block_range(shape[1], comm.size, comm.rank)
    assert (dst[0] == full[:, c0:c1 + 1]).all()


def cell_mask(array):
    """Which bytes of the array's memory (array.base: all of it) hold cells."""
    mask = np.zeros(array.base.nbytes, dtype=bool)
    cells = np.ndarray(array.shape + (array.itemsize,), bool, mask,
                       strides=array.strides + (1,))
    cells[...] = True
    return mask


def test_padded_layout_padding_untouched(comm):
    """Padding between and after the cells is allocated and never written."""
    shape, dtype = (9, 7), np.float32
    padded = dri.Layout.ordered([0, 1], [2, 3])
    data = dri.GlobalData(shape, dtype)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    block = rows.block(padded)
    out = rows.empty(padded, 2)
    assert out[0].shape == block.shape
    assert out[0].strides == tuple(s * 4 for s in block.strides)
    assert out[0].base.nbytes == block.bytes
    assert block.bytes > out[0].nbytes  # the outer padding is allocated
    for a in out:
        a.base[...] = 0xAB  # a sentinel in every byte, padding included
    src = cols.empty(COLS(), 2)
    t = dri.Transfer("padded")
    t.send(cols, COLS(), src)
    t.recv(rows, padded, out)
    t.commit()
    first, last = block_range(shape[0], comm.size, comm.rank)
    c0, c1 = block_range(shape[1], comm.size, comm.rank)
    for k in range(2):
        src[k][...] = frame(shape, k, dtype)[:, c0:c1 + 1]
        t.execute()
        np.testing.assert_array_equal(out[k],
                                      frame(shape, k, dtype)[first:last + 1])
        assert (out[k].base[~cell_mask(out[k])] == 0xAB).all()


def test_bipartite_pipeline_over_rank_lists(comm):
    """Producers and consumers are different processes named by rank lists;
    ranks outside both groups still take part in the commit."""
    if comm.size < 2:
        pytest.skip("needs two processes")
    half = comm.size // 2
    producers, consumers = list(range(half)), list(range(half, comm.size))
    shape, dtype = (10, 8), np.int32
    data = dri.GlobalData(shape, dtype)
    t = dri.Transfer("pipeline")
    if comm.rank in producers:
        rows = dri.Distribution(data, "block,whole", producers)
        src = rows.empty(ROWS(), 1)
        first, last = block_range(shape[0], half, producers.index(comm.rank))
        src[0][...] = frame(shape, 3, dtype)[first:last + 1]
        t.send(rows, ROWS(), src)
    else:
        group = dri.Group(dri.COMM_WORLD, consumers)
        assert group.ranks == consumers and group.contains_me
        cols = dri.Distribution(data, "whole,block", group)
        dst = cols.empty(COLS(), 1)
        t.recv(cols, COLS(), dst)
    dri.commit(dri.COMM_WORLD, [t])
    t.execute()
    if comm.rank in consumers:
        me = consumers.index(comm.rank)
        c0, c1 = block_range(shape[1], len(consumers), me)
        np.testing.assert_array_equal(dst[0],
                                      frame(shape, 3, dtype)[:, c0:c1 + 1])
