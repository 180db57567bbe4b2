"""The parts of the C++ API beside transfers between distributions: the
one-call corner turn, the version, help() texts; and the traps the binding
closes: rings that are not lists or tuples, rings replaced after declaring,
dtypes without an element type. Also the process grid order that a
Cartesian communicator's blocks need (docs/python.md)."""

import inspect
import os
import re

import numpy as np
import pytest

import dri
from oracle import block_range, frame

TOP = os.path.join(os.path.dirname(__file__), "..", "..")


def test_version_is_the_librarys():
    # The one version number: CMake's project(); the module reports the
    # libdri it loaded (DRI_Get_version).
    with open(os.path.join(TOP, "CMakeLists.txt")) as f:
        project = re.search(r"project\(dri VERSION ([0-9.]+)", f.read())[1]
    assert dri.__version__ == project
    assert re.fullmatch(r"\d+\.\d+\.\d+", dri.__version__)


def described(doc):
    """The text of a docstring without pybind11's signature lines."""
    lines = (doc or "").splitlines()
    sig = re.compile(r"^(\d+\. )?[A-Za-z_]\w*\(.*\)( -> .*)?$")
    return "\n".join(l for l in lines
                     if l.strip() and not sig.match(l)
                     and l != "Overloaded function.").strip()


NOT_HERE = set()


def test_every_public_name_has_help():
    missing = []
    for name in dri.__all__:
        obj = getattr(dri, name)
        if name in NOT_HERE or not (inspect.isclass(obj) or callable(obj)):
            continue
        if len(described(obj.__doc__)) < 20:
            missing.append(name)
        if not inspect.isclass(obj) or issubclass(obj, BaseException):
            continue
        enum = hasattr(obj, "__members__")
        for attr, member in vars(obj).items():
            if attr.startswith("_") or (enum and attr in obj.__members__):
                continue
            if enum and attr in ("name", "value"):
                continue  # pybind11's own members of every enum
            if not described(member.__doc__ if not isinstance(
                    member, staticmethod) else member.__func__.__doc__):
                missing.append(name + "." + attr)
    assert not missing, "no help() text: " + ", ".join(missing)


def setup_turn(comm, dtype=np.float32):
    data = dri.GlobalData((6, 8), dtype)
    return (dri.Distribution(data, "block,whole", comm),
            dri.Distribution(data, "whole,block", comm))


def test_a_ring_is_a_list_or_tuple(comm):
    rows, cols = setup_turn(comm)
    layout = dri.Layout.packed(2)
    one = rows.empty(layout)
    t = dri.Transfer("t")
    for bad, got in ((one, "one numpy.ndarray of shape %s" % (one.shape,)),
                     (np.stack([one, one]), "one numpy.ndarray"),
                     (iter([one]), "a list_iterator")):
        with pytest.raises(dri.Error, match="send buffers: a ring is a list "
                           "or tuple of arrays, got " + re.escape(got)) as e:
            t.send(rows, layout, bad)
        assert e.value.code == dri.ERR_BUFFER
        assert "wrap one array as [a]" in str(e.value)
    assert t.send_buffers == ()
    t.send(rows, layout, (one,))
    assert t.send_buffers == (one,)


def test_rings_are_read_only_tuples_filled_in_place(comm):
    """The ring a transfer uses cannot be replaced through it; filling the
    current array in place is what moves."""
    rows, cols = setup_turn(comm, np.int32)
    rl, cl = dri.Layout.packed(2), dri.Layout.ordered([1, 0])
    src = rows.empty(rl, 2)
    with dri.Transfer("t") as t:
        t.send(rows, rl, src)
        t.recv(cols, cl, cols.empty(cl, 2))
        t.commit()
        assert isinstance(t.send_buffers, tuple)
        with pytest.raises(TypeError):
            t.send_buffers[0] = np.zeros_like(src[0])
        with pytest.raises(AttributeError):
            t.send_buffers = ()
        first, last = block_range(6, comm.size, comm.rank)
        c0, c1 = block_range(8, comm.size, comm.rank)
        for k in range(3):
            full = frame((6, 8), k, np.int32)
            t.send_buffers[t.current_send_buffer][...] = full[first:last + 1]
            received = t.recv_buffers[t.current_recv_buffer]
            t.execute()
            np.testing.assert_array_equal(received, full[:, c0:c1 + 1])


def test_zero_size_block_takes_any_strides(comm):
    """A zero-size block has no element to place: any array of its shape and
    dtype is accepted, whatever its strides (NumPy 1.24 gives a fresh one
    all 0). Refusing it on that rank alone left the others in commit."""
    n = max(comm.size - 1, 1)  # from 2 ranks on, the last holds no row
    data = dri.GlobalData((n, 3), np.float64)
    rows = dri.Distribution(data, "block[0:],whole", comm)
    cols = dri.Distribution(data, "whole,block[0:]", comm)
    rl, cl = dri.Layout.packed(2), dri.Layout.ordered([1, 0])
    rshape, cshape = rows.block(rl).shape, cols.block(cl).shape
    src = np.zeros(rshape)
    dst = np.zeros(cshape, order="F")
    if src.size == 0:  # as NumPy 1.24 makes it, or forced where it does not
        src = np.lib.stride_tricks.as_strided(np.zeros(1), rshape, (0,) * 2)
    with dri.Transfer("empty rows") as t:
        t.send(rows, rl, [src])
        t.recv(cols, cl, [dst])
        t.commit()
        first, last = block_range(n, comm.size, comm.rank)
        c0, c1 = block_range(3, comm.size, comm.rank)
        full = frame((n, 3), 0, np.float64)
        src[...] = full[first:last + 1]
        t.execute()
        np.testing.assert_array_equal(dst, full[:, c0:c1 + 1])


@pytest.mark.parametrize("dtype,hint", [
    (np.float16, "a.view(np.uint16)"), (np.bool_, "a.view(np.uint8)"),
    (np.dtype(">f8"), "newbyteorder"), (np.longdouble, "np.dtype('V")])
def test_refused_dtypes_say_what_works(comm, dtype, hint):
    with pytest.raises(dri.Error, match=re.escape(hint)) as e:
        dri.GlobalData((4, 4), dtype)
    assert e.value.code == dri.ERR_TYPE


def test_array_of_another_dtype_of_the_same_size(comm):
    """float16 data moved as uint16, given a float16 array by mistake."""
    data = dri.GlobalData((4, 6), np.uint16)
    rows = dri.Distribution(data, "block,whole", comm)
    layout = dri.Layout.packed(2)
    half = np.zeros(rows.block(layout).shape, np.float16)
    with pytest.raises(dri.Error,
                       match=re.escape("a.view(np.uint16) reinterprets")) as e:
        dri.Transfer("t").send(rows, layout, [half])
    assert e.value.code == dri.ERR_TYPE
    dri.Transfer("t").send(rows, layout, [half.view(np.uint16)])


@pytest.mark.parametrize("dtype", [np.complex64, dri.Type.DOUBLE])
def test_corner_turn_one_call(comm, dtype):
    n, m = 9, 7
    send, recv = dri.corner_turn_blocks(comm, n, m, dtype)
    npdtype = np.dtype(np.float64 if dtype == dri.Type.DOUBLE else dtype)
    first, last = block_range(n, comm.size, comm.rank)
    c0, c1 = block_range(m, comm.size, comm.rank)
    assert send.shape == (last - first + 1, m) and recv.shape == (n, c1 - c0 + 1)
    src = [np.empty(send.shape, npdtype) for _ in range(2)]
    dst = (np.empty(recv.shape[::-1], npdtype).T,)
    with dri.corner_turn(comm, n, m, dtype, src, dst) as t:
        assert t.committed
        assert t.send_buffers == tuple(src) and t.recv_buffers[0] is dst[0]
        for k in range(3):
            full = frame((n, m), k, npdtype)
            src[k % 2][...] = full[first:last + 1]
            t.execute()
            np.testing.assert_array_equal(dst[0], full[:, c0:c1 + 1])


def test_corner_turn_wrong_array_on_one_rank_raises_everywhere(comm):
    """The arrays are checked between the call's two collectives: a refusal
    on the last rank is the same dri.Error on every rank."""
    n, m, last = 9, 7, comm.size - 1
    send, recv = dri.corner_turn_blocks(comm, n, m, np.float32)
    src = [np.empty(send.shape, np.float32)]
    dst = [np.empty(recv.shape[::-1], np.float32).T]
    if comm.rank == last:
        dst = [np.empty((recv.shape[1], n + 1), np.float32).T]  # a row too many
    with pytest.raises(dri.Error, match="rank %d: recv buffer 0: array of "
                       "shape" % last) as e:
        dri.corner_turn(comm, n, m, np.float32, src, dst)
    assert e.value.code == dri.ERR_BUFFER_SIZE
    if comm.rank == last:
        dst = np.empty(recv.shape[::-1], np.float32).T  # not a ring
    with pytest.raises(dri.Error, match="a ring is a list or tuple") as e:
        dri.corner_turn(comm, n, m, np.float32, src, dst)
    assert e.value.code == dri.ERR_BUFFER


def test_corner_turn_refusals(comm):
    with pytest.raises(dri.Error, match="not a record") as e:
        dri.corner_turn_blocks(comm, 4, 4, "V8")
    assert e.value.code == dri.ERR_TYPE
    with pytest.raises(dri.Error, match=re.escape("a.view(np.uint16)")):
        dri.corner_turn_blocks(comm, 4, 4, np.float16)
    with pytest.raises(dri.Error) as e:
        dri.corner_turn_blocks(comm, 0, 4, np.float32)
    assert e.value.code == dri.ERR_EXTENT


@pytest.mark.parametrize("axis_dims", [[0, 1], [1, 0]])
def test_cartesian_block_order(comm, axis_dims):
    """A 2 x 2 Cartesian grid; array axes 1 and 2 split along Cartesian
    dimensions axis_dims: each process gets the block of its own Cartesian
    coordinates (dri.grid_group, docs/python.md). Without it, axis_dims
    [1, 0] swaps ranks 1 and 2."""
    if comm.size != 4:
        pytest.skip("a 2 x 2 grid: 4 processes")
    shape = (3, 10, 7)
    data = dri.GlobalData(shape, np.float32)
    part = "whole,block/2,block/2"
    cart = divmod(comm.rank, 2)  # MPI_Cart_coords of a 2 x 2 grid
    mine = [cart[d] for d in axis_dims]
    dist = dri.Distribution(data, part, dri.grid_group(comm, [2, 2], mine))
    block = dist.block(dri.Layout.packed(3))
    assert list(block.coords) == [0] + mine
    for axis, c in zip((1, 2), mine):
        first, last = block_range(shape[axis], 2, c)
        assert (block.owned_first[axis], block.owned_last[axis]) == (first, last)
    naive = dri.Distribution(data, part, comm).block(dri.Layout.packed(3))
    swapped = axis_dims == [1, 0] and comm.rank in (1, 2)
    assert (list(naive.coords) != [0] + mine) == swapped
