"""Fan-out (two receiving groups under one name) and reverse transfers from
Python: exact data against the NumPy oracle, the dot-product test of the
adjoint <T x, y> = <x, T^T y> on random data, MAX/MIN/REPLACE, and the
reverse's errors raised on every rank."""

import numpy as np
import pytest

import dri
from oracle import block_range, frame, halo_rows, take_rows

SHAPE = (13, 11)


def rows_layout():
    return dri.Layout.packed(2)


def cols_layout():
    return dri.Layout.ordered([1, 0])


def sender(comm, dtype, nbuf=1):
    """Every process sends its row block of the matrix."""
    data = dri.GlobalData(SHAPE, dtype)
    dist = dri.Distribution(data, "block,whole", comm)
    return data, dist, dist.zeros(rows_layout(), nbuf)


def my_rows(comm):
    first, last = block_range(SHAPE[0], comm.size, comm.rank)
    return slice(first, last + 1)


def fan_groups(comm):
    """Two disjoint receiving groups of COMM_WORLD ranks: every rank but the
    last, and the last (which receives the whole matrix)."""
    return list(range(comm.size - 1)), [comm.size - 1]


def fanout(comm, dtype, nbuf=(2, 3, 1)):
    """A fan-out: rows to group A's column blocks (columns contiguous) and to
    group B's one process whole. Returns the transfer, the sender's ring,
    this process's receiving ring and a function giving what it holds of a
    global matrix."""
    data, rows, src = sender(comm, dtype, nbuf[0])
    a, b = fan_groups(comm)
    t = dri.Transfer("fan")
    t.send(rows, rows_layout(), src)
    if comm.rank in a:
        cols = dri.Distribution(data, "whole,block", a)
        dst = cols.zeros(cols_layout(), nbuf[1])
        t.recv(cols, cols_layout(), dst)
        first, last = block_range(SHAPE[1], len(a), a.index(comm.rank))
        view = lambda full: full[:, first:last + 1]  # noqa: E731
    else:
        whole = dri.Distribution(data, "whole,whole", b)
        dst = whole.zeros(rows_layout(), nbuf[2])
        t.recv(whole, rows_layout(), dst)
        view = lambda full: full  # noqa: E731
    t.commit()
    return t, src, dst, view


def needs_two(comm):
    if comm.size < 2:
        pytest.skip("a fan-out needs two receiving groups: 2 processes")


def test_fanout_exact(comm):
    needs_two(comm)
    dtype = np.complex64
    t, src, dst, view = fanout(comm, dtype)
    with t:
        for k in range(5):
            src[k % len(src)][...] = frame(SHAPE, k, dtype)[my_rows(comm)]
            t.execute()
            np.testing.assert_array_equal(dst[k % len(dst)],
                                          view(frame(SHAPE, k, dtype)))


def dot(comm, pairs):
    """The global sum of sum(a * b) over this process's pairs of arrays."""
    local = sum(float(np.vdot(b, a).real) for a, b in pairs)
    return comm.allreduce(local)


def adjoint_case(comm, forward, dtype):
    """<T x, y> and <x, T^T y> for the committed transfer `forward`, x and
    y random integers (every sum exact in float64)."""
    rng = np.random.default_rng(2029 + comm.rank)
    src, dst = forward.send_buffers, forward.recv_buffers
    x = rng.integers(-9, 10, src[0].shape).astype(dtype)
    src[0][...] = x
    forward.execute()
    y = [rng.integers(-9, 10, d.shape).astype(dtype) for d in dst]
    lhs = dot(comm, [(dst[0], y[0])])
    forward.recv_buffers[0][...] = y[0]
    back = forward.reverse(dri.Combine.SUM)
    back.execute()
    rhs = dot(comm, [(x, src[0])])
    back.close()
    return lhs, rhs


@pytest.mark.parametrize("edge", ["wrap", "zero", "replicate"])
def test_reverse_sum_is_the_adjoint(comm, edge):
    """Row blocks to column blocks with a halo of 2 and 1 columns: every
    halo cell is a second copy of an element, which the adjoint adds back."""
    data, rows, src = sender(comm, np.float64)
    cols = dri.Distribution(data, "whole,block~2:1:" + edge, comm)
    dst = cols.zeros(cols_layout(), 1)
    with dri.Transfer("adjoint") as t:
        t.send(rows, rows_layout(), src)
        t.recv(cols, cols_layout(), dst)
        t.commit()
        lhs, rhs = adjoint_case(comm, t, np.float64)
    assert lhs == rhs and lhs != 0


def test_reverse_sum_of_a_fanout_is_the_adjoint(comm):
    needs_two(comm)
    t, src, dst, view = fanout(comm, np.float64, (1, 1, 1))
    with t:
        lhs, rhs = adjoint_case(comm, t, np.float64)
    assert lhs == rhs and lhs != 0


def test_reverse_replace_and_rings(comm):
    """REPLACE brings each element back from its owner: after the receivers
    change their blocks, the senders hold the changed matrix, exactly.
    The reverse runs over the forward rings swapped, with its own cursor."""
    dtype = np.int32
    data, rows, src = sender(comm, dtype, 2)
    cols = dri.Distribution(data, "whole,block", comm)
    dst = cols.zeros(cols_layout(), 2)
    with dri.Transfer("replace") as t:
        t.send(rows, rows_layout(), src)
        t.recv(cols, cols_layout(), dst)
        t.commit()
        back = t.reverse(dri.Combine.REPLACE)
        assert back.committed and back.name == "replace (reverse)"
        assert all(a is b for a, b in zip(back.send_buffers, t.recv_buffers))
        assert all(a is b for a, b in zip(back.recv_buffers, t.send_buffers))
        first, last = block_range(SHAPE[1], comm.size, comm.rank)
        for k in range(3):
            src[k % 2][...] = frame(SHAPE, k, dtype)[my_rows(comm)]
            t.execute()
            assert back.current_send_buffer == k % 2
            dst[k % 2] *= -1
            back.start()
            back.wait()
            np.testing.assert_array_equal(
                src[k % 2], -frame(SHAPE, k, dtype)[my_rows(comm)])
        back.close()


def test_reverse_max_min_over_a_fanout(comm):
    """Group A's copy is raised by 5, group B's lowered by 5: MAX brings
    back A's, MIN B's, for every element."""
    needs_two(comm)
    dtype = np.int64
    t, src, dst, view = fanout(comm, dtype, (1, 1, 1))
    a, _ = fan_groups(comm)
    shift = 5 if comm.rank in a else -5
    full = frame(SHAPE, 3, dtype)
    with t:
        for op, expected in ((dri.Combine.MAX, full + 5),
                             (dri.Combine.MIN, full - 5)):
            src[0][...] = full[my_rows(comm)]
            t.execute()
            dst[0] += shift
            with t.reverse(op) as back:
                back.execute()
            np.testing.assert_array_equal(src[0], expected[my_rows(comm)])


def test_reverse_errors_everywhere(comm):
    # REPLACE needs one owner per element: a fan-out has one per side.
    if comm.size >= 2:
        t, _, _, _ = fanout(comm, np.float32, (1, 1, 1))
        with t, pytest.raises(dri.Error, match="REPLACE") as e:
            t.reverse(dri.Combine.REPLACE)
        assert e.value.code == dri.ERR_NOT_DISJOINT
    # MAX is not defined on complex numbers.
    data, rows, src = sender(comm, np.complex128)
    cols = dri.Distribution(data, "whole,block", comm)
    with dri.Transfer("c") as t:
        t.send(rows, rows_layout(), src)
        t.recv(cols, cols_layout(), cols.zeros(cols_layout(), 1))
        with pytest.raises(dri.Error, match="committed") as e:
            t.reverse(dri.Combine.SUM)
        assert e.value.code == dri.ERR_STATE
        t.commit()
        with pytest.raises(dri.Error, match="MAX") as e:
            t.reverse(dri.Combine.MAX)
        assert e.value.code == dri.ERR_TYPE
        with pytest.raises(TypeError):
            t.reverse(2)  # a dri.Combine, not its value


def test_reverse_refused_everywhere_for_a_read_only_send_array(comm):
    """The reverse writes into the forward send arrays, which send() takes
    read-only: one read-only array on the last rank refuses the reverse on
    every rank (none is left waiting in a collective)."""
    last = comm.size - 1
    data, rows, src = sender(comm, np.float32)
    src[0].flags.writeable = comm.rank != last
    cols = dri.Distribution(data, "whole,block", comm)
    with dri.Transfer("ro") as t:
        t.send(rows, rows_layout(), src)
        t.recv(cols, cols_layout(), cols.zeros(cols_layout(), 1))
        t.commit()
        with pytest.raises(dri.Error, match="read-only") as e:
            t.reverse(dri.Combine.SUM)
        assert e.value.code == dri.ERR_BUFFER
        if comm.rank == last:
            assert "send buffer 0 of transfer 'ro'" in str(e.value)
        src[0].flags.writeable = True
        with t.reverse(dri.Combine.SUM) as back:
            back.execute()


def test_halo_copies_sum_back(comm):
    """SUM over a wrap halo, checked element by element: every element comes
    back as (1 + the number of halo cells copying it) times itself."""
    dtype = np.int64
    data, rows, src = sender(comm, dtype)
    recv = dri.Distribution(data, "whole,block~1:1:wrap", comm)
    dst = recv.zeros(cols_layout(), 1)
    full = frame(SHAPE, 0, dtype)
    with dri.Transfer("halo") as t:
        t.send(rows, rows_layout(), src)
        t.recv(recv, cols_layout(), dst)
        t.commit()
        src[0][...] = full[my_rows(comm)]
        t.execute()
        first, last = block_range(SHAPE[1], comm.size, comm.rank)
        stored = halo_rows(SHAPE[1], first, last, 1, 1, "wrap")
        np.testing.assert_array_equal(dst[0], take_rows(full.T, stored).T)
        with t.reverse(dri.Combine.SUM) as back:
            back.execute()
    copies = np.zeros(SHAPE[1], np.int64)
    for c in range(comm.size):
        f, l_ = block_range(SHAPE[1], comm.size, c)
        for j in halo_rows(SHAPE[1], f, l_, 1, 1, "wrap"):
            copies[j] += 1
    np.testing.assert_array_equal(src[0], full[my_rows(comm)] * copies)
