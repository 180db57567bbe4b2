"""Every error the binding adds, and the C++ errors passed through: each is a
dri.Error with the DRI_ERR_* code, raised on every rank alike."""

import os
import re

import numpy as np
import pytest

import dri

HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "include", "dri",
                      "dri.h")


def layouts():
    return dri.Layout.packed(2), dri.Layout.ordered([1, 0])


def turn(comm, shape=(8, 8), dtype=np.float32):
    data = dri.GlobalData(shape, dtype)
    return (dri.Distribution(data, "block,whole", comm),
            dri.Distribution(data, "whole,block", comm))


def check(excinfo, code):
    assert excinfo.value.code == code, str(excinfo.value)


def test_codes_are_the_headers():
    with open(HEADER) as f:
        header = dict(re.findall(r"#define DRI_(ERR_[A-Z_]+) (\d+)", f.read()))
    assert len(header) == 28
    for name, value in header.items():
        assert getattr(dri, name) == int(value), name


def test_error_carries_code_name_and_message(comm):
    with pytest.raises(dri.Error) as e:
        dri.Partition("block~")
    assert e.value.code == dri.ERR_ARG
    assert e.value.name == "DRI_ERR_ARG"
    assert str(e.value).startswith("DRI_ERR_ARG: ")
    assert "dimension 0" in str(e.value)
    assert isinstance(e.value, RuntimeError)
    assert dri.error_string(dri.ERR_TYPE)


def test_buffer_not_an_array(comm):
    rows, _ = turn(comm)
    with pytest.raises(dri.Error,
                       match="expected a numpy.ndarray, got list") as e:
        dri.Transfer("t").send(rows, layouts()[0], [[0.0] * 64])
    check(e, dri.ERR_BUFFER)


@pytest.mark.parametrize("bad", [np.float64, np.int32, np.dtype(">f4")])
def test_buffer_dtype(comm, bad):
    rows, _ = turn(comm)
    shape = rows.block(layouts()[0]).shape
    with pytest.raises(dri.Error, match="send buffer 0: array of dtype") as e:
        dri.Transfer("t").send(rows, layouts()[0], [np.zeros(shape, bad)])
    check(e, dri.ERR_TYPE)


def test_buffer_shape(comm):
    rows, _ = turn(comm)
    good = rows.empty(layouts()[0])
    wrong = np.zeros((good.shape[0] + 1, good.shape[1]), np.float32)
    with pytest.raises(dri.Error, match="recv buffer 1: array of shape") as e:
        dri.Transfer("t").recv(rows, layouts()[0], [good, wrong])
    check(e, dri.ERR_BUFFER_SIZE)
    with pytest.raises(dri.Error) as e:
        dri.Transfer("t").recv(rows, layouts()[0], [good.reshape(-1)])
    check(e, dri.ERR_BUFFER_SIZE)


def test_buffer_strides(comm):
    """A C-ordered array where the layout stores columns contiguously."""
    _, cols = turn(comm)
    shape = cols.block(layouts()[1]).shape
    with pytest.raises(dri.Error, match="strides") as e:
        dri.Transfer("t").recv(cols, layouts()[1],
                               [np.zeros(shape, np.float32)])
    check(e, dri.ERR_LAYOUT)
    # The same cells as a transposed view of a C-ordered array are fine.
    ok = np.zeros(shape[::-1], np.float32).T
    dri.Transfer("t").recv(cols, layouts()[1], [ok])


def test_buffer_read_only(comm):
    rows, cols = turn(comm)
    src = rows.empty(layouts()[0])
    src.flags.writeable = False
    dst = cols.empty(layouts()[1])
    dst.flags.writeable = False
    t = dri.Transfer("t")
    t.send(rows, layouts()[0], [src])  # dri never writes a send buffer
    with pytest.raises(dri.Error, match="read-only") as e:
        t.recv(cols, layouts()[1], [dst])
    check(e, dri.ERR_BUFFER)


def test_buffer_memory_short_of_outer_padding(comm):
    """A view with the right shape and strides over too little memory."""
    rows, _ = turn(comm)
    padded = dri.Layout.ordered([0, 1], [2, 3])
    block = rows.block(padded)
    r, m = block.shape
    short = np.zeros((r, m + 3), np.float32)[:, :m]
    with pytest.raises(dri.Error, match="needs %d bytes" % block.bytes) as e:
        dri.Transfer("t").send(rows, padded, [short])
    check(e, dri.ERR_BUFFER_SIZE)
    enough = np.zeros((r + 2, m + 3), np.float32)[:r, :m]
    dri.Transfer("t").send(rows, padded, [enough])


def test_refused_declaration_keeps_nothing(comm):
    rows, _ = turn(comm)
    t = dri.Transfer("t")
    good = rows.empty(layouts()[0])
    with pytest.raises(dri.Error):
        t.send(rows, layouts()[0], [good, np.zeros(3)])
    assert t.send_buffers == ()
    t.send(rows, layouts()[0], [good])
    assert t.send_buffers == (good,)
    with pytest.raises(dri.Error) as e:
        t.send(rows, layouts()[0], [good])
    check(e, dri.ERR_DUPLICATE)


def test_empty_ring(comm):
    rows, _ = turn(comm)
    with pytest.raises(dri.Error) as e:
        dri.Transfer("t").send(rows, layouts()[0], [])
    check(e, dri.ERR_BUFFER_COUNT)
    with pytest.raises(dri.Error) as e:
        rows.empty(layouts()[0], count=0)
    check(e, dri.ERR_BUFFER_COUNT)


@pytest.mark.parametrize("bad", [np.float16, np.bool_, "no such type"])
def test_element_type(comm, bad):
    with pytest.raises(dri.Error) as e:
        dri.GlobalData((4, 4), bad)
    check(e, dri.ERR_TYPE)


def test_communicator_argument(comm):
    for bad in (42, "world", None):
        with pytest.raises(dri.Error, match="expected a communicator") as e:
            dri.Group(bad)
        check(e, dri.ERR_ARG)
    with pytest.raises(dri.Error) as e:
        comm.allreduce(1.0, "prod")
    check(e, dri.ERR_ARG)


def test_state_errors_pass_through(comm):
    rows, cols = turn(comm)
    t = dri.Transfer("t")
    t.send(rows, layouts()[0], rows.empty(layouts()[0], 1))
    t.recv(cols, layouts()[1], cols.empty(layouts()[1], 1))
    for call in (t.execute, t.wait, t.test):
        with pytest.raises(dri.Error) as e:
            call()
        check(e, dri.ERR_STATE)
    t.commit()
    t.execute()
    t.close()
    for call in (t.execute, t.commit, lambda: t.name):
        with pytest.raises(dri.Error, match="closed") as e:
            call()
        check(e, dri.ERR_HANDLE)


def test_not_a_member(comm):
    if comm.size < 2:
        pytest.skip("needs two processes")
    data = dri.GlobalData((4, 4), np.float32)
    group = dri.Group(comm, [0])
    if comm.rank == 0:
        dist = dri.Distribution(data, "block,whole", group)
        assert dist.index == 0
    else:
        assert not group.contains_me and group.index == -1


def test_shared_memory_free_refused_while_viewed(comm):
    mem = dri.SharedMemory(256)
    view = mem.as_array(np.float64)
    assert view.shape == (32,)
    view[...] = comm.rank
    with pytest.raises(dri.Error, match="still view the memory") as e:
        mem.free()
    check(e, dri.ERR_STATE)
    del view
    mem.free()
    # Freeing twice is ERR_ARG, as C's DRI_Free_mem; other use is ERR_STATE.
    for call, code in ((mem.free, dri.ERR_ARG), (lambda: mem.as_array(), dri.ERR_STATE)):
        with pytest.raises(dri.Error, match="already freed") as e:
            call()
        check(e, code)
    with pytest.raises(dri.Error) as e:
        dri.SharedMemory(-1)
    check(e, dri.ERR_ARG)


def test_shared_memory_is_local(comm):
    """One rank allocates and frees alone: nobody waits for the others."""
    if comm.rank == comm.size - 1:
        for _ in range(50):
            with dri.SharedMemory(1 << 20) as mem:
                mem.as_array()[-1] = 1
            a = dri.empty((512, 256))
            del a
    comm.barrier()


def test_shared_memory_too_small_for_block(comm):
    rows, _ = turn(comm)
    with dri.SharedMemory(8) as mem:
        with pytest.raises(dri.Error, match="the block needs") as e:
            mem.as_block(rows, layouts()[0])
        check(e, dri.ERR_BUFFER_SIZE)


def test_not_initialized_then_again(comm):
    dri.finalize()
    try:
        assert not dri.initialized()
        with pytest.raises(dri.Error) as e:
            dri.Layout.packed(2)
        check(e, dri.ERR_NOT_INITIALIZED)
    finally:
        dri.init()
    assert dri.initialized()
    rows, cols = turn(comm)
    assert rows.size == comm.size
