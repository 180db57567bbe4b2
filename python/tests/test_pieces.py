"""Pieces (issue 44): a corner turn whose frame moves piece by piece. The
producer writes each piece of the send array in flight after start() and
marks it ready; the consumer waits for (or polls) each piece of its receive
array and checks it against the NumPy oracle right away, before wait().
Also explicit bounds, a consumer that takes each piece as soon as the send
pieces it needs are marked (a frame that only moved whole would fail it),
and the errors, raised on every rank alike."""

import contextlib
import threading
import time

import numpy as np
import pytest

import dri
from oracle import block_range, frame

SHAPE = (13, 10)
DTYPE = np.float64
# In every array before a frame: frame() values are positive, so a cell the
# frame should have written and did not, or a send cell read before its
# piece was written, shows up as -1.
SENTINEL = -1.0
SEND, RECV = dri.Role.SEND, dri.Role.RECV


def ROWS():
    return dri.Layout.packed(2)


def COLS():
    return dri.Layout.ordered([1, 0])


def setup_turn(comm, shared, nbuf=2):
    """Row blocks (C order) to column blocks (column-major): arrays in node
    shared memory (AUTO then picks the single copy) or plain NumPy arrays
    (the pieces move as messages)."""
    data = dri.GlobalData(SHAPE, DTYPE)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    if shared:
        return rows, cols, rows.empty(ROWS(), nbuf), cols.empty(COLS(), nbuf)
    send_shape = rows.block(ROWS()).shape
    recv_shape = cols.block(COLS()).shape
    return (rows, cols, [np.empty(send_shape, DTYPE) for _ in range(nbuf)],
            [np.empty(recv_shape[::-1], DTYPE).T for _ in range(nbuf)])


def my_rows(comm, k):
    """This process's row block of frame k."""
    first, last = block_range(SHAPE[0], comm.size, comm.rank)
    return frame(SHAPE, k, DTYPE)[first:last + 1, :]


def my_cols(comm, k):
    """What this process's column block holds after frame k."""
    first, last = block_range(SHAPE[1], comm.size, comm.rank)
    return frame(SHAPE, k, DTYPE)[:, first:last + 1]


def piece_index(t, role, k):
    """The index of piece k of `role` in a block array: its range along the
    split dimension, everything along the other."""
    dim, _ = t.pieces(role)
    if dim < 0:
        return (slice(None), slice(None))
    lo, hi = t.piece(role, k)
    return tuple(slice(lo, hi) if d == dim else slice(None) for d in range(2))


def split(t, role, how):
    """Applies a split: None (never split) or (dim, count)."""
    if how is not None:
        t.pieces(role, *how)


def order(kind, count, rng):
    if kind == "forward":
        return list(range(count))
    if kind == "reverse":
        return list(range(count))[::-1]
    return [int(j) for j in rng.permutation(count)]


def produce(t, array, rows, marks):
    """Writes each piece of the send array in flight, then marks it: the
    array held only the sentinel at start(), so a strategy that read a piece
    before its ready() would deliver -1."""
    for j in marks:
        where = piece_index(t, SEND, j)
        array[where] = rows[where]
        t.ready(j)


class Errors(list):
    """What went wrong on this process, kept until the frames are over: an
    assertion in the middle of a frame would leave it in flight, and the
    other processes waiting for pieces this one never marks. check_all()
    then fails every process alike (conftest.py: no rank raises alone)."""

    def same(self, got, want, what):
        if not np.array_equal(got, want):
            bad = np.argwhere(got != want)
            self.append("%s: %d of %d cells wrong, first at %s (%s, not %s)"
                        % (what, len(bad), got.size, tuple(bad[0]),
                           got[tuple(bad[0])], want[tuple(bad[0])]))

    def check_all(self, comm):
        anywhere = comm.allreduce(float(len(self)), "max")
        assert not self, "rank %d: %s" % (comm.rank, "; ".join(self))
        assert anywhere == 0, "another rank saw wrong data"


def consume(t, array, expected, kind, rng, errors, frame_no=0):
    """Waits for each receive piece (wait_piece in `kind`'s order, or polling
    arrived() over all of them) and checks it as soon as it has arrived."""
    count = t.pieces(RECV)[1]

    def check(q):
        where = piece_index(t, RECV, q)
        errors.same(array[where], expected[where],
                    "frame %d, receive piece %d on arrival" % (frame_no, q))

    if kind != "poll":
        for q in order(kind, count, rng):
            t.wait_piece(q)
            if t.arrived(q) is not True:
                errors.append("arrived(%d) is not True after wait_piece" % q)
            check(q)
        return
    pending = list(range(count))
    deadline = time.monotonic() + 60
    while pending:
        if time.monotonic() > deadline:
            errors.append("frame %d: pieces %s never arrived" % (frame_no,
                                                                 pending))
            return
        for q in list(pending):
            if t.arrived(q):
                check(q)
                pending.remove(q)


# (send split, receive split, strategy, arrays in shared memory, order of
# the ready() calls, order of the consumer). 13 rows over 4 ranks are 3 or
# 4 per block: 5 pieces along them include empty ones.
CASES = [
    ((0, 3), (1, 2), dri.Strategy.P2P, False, "reverse", "reverse"),
    ((1, 4), (0, 5), dri.Strategy.P2P, False, "random", "random"),
    ((0, 5), (1, 3), dri.Strategy.AUTO, True, "random", "poll"),
    ((1, 2), None, dri.Strategy.AUTO, True, "reverse", "forward"),
    (None, (1, 4), dri.Strategy.P2P, False, None, "random"),
    ((0, 2), (0, 2), dri.Strategy.AUTO, False, "reverse", "poll"),
    ((1, 1), (1, 1), dri.Strategy.AUTO, True, "forward", "forward"),
]


def case_id(case):
    send, recv, strategy, shared, marks, waits = case
    side = (lambda how: "whole" if how is None else "%dx%d" % how)
    return "%s-%s-send%s-recv%s-%s-%s" % (
        strategy.name, "shared" if shared else "numpy", side(send), side(recv),
        marks or "start", waits)


@pytest.mark.parametrize("send_split,recv_split,strategy,shared,marks,waits",
                         CASES, ids=[case_id(c) for c in CASES])
def test_pieces_exact(comm, send_split, recv_split, strategy, shared, marks,
                      waits):
    rows, cols, src, dst = setup_turn(comm, shared)
    rng = np.random.default_rng(44 + comm.rank)
    errors = Errors()
    with dri.Transfer("pieces") as t:
        t.send(rows, ROWS(), src)
        t.recv(cols, COLS(), dst)
        split(t, SEND, send_split)
        split(t, RECV, recv_split)
        t.strategy(strategy)
        t.commit()
        if strategy != dri.Strategy.AUTO:
            assert t.chosen_strategy == strategy
        elif shared and comm.size > 1:
            assert t.chosen_strategy in (dri.Strategy.SHARED,
                                         dri.Strategy.HYBRID)
        assert t.pieces(SEND) == (send_split or (-1, 1))
        assert t.pieces(RECV) == (recv_split or (-1, 1))
        for k in range(4):
            i, o = t.current_send_buffer, t.current_recv_buffer
            assert (i, o) == (k % 2, k % 2)
            dst[o][...] = SENTINEL
            if k == 2:
                # execute() marks every piece itself.
                src[i][...] = my_rows(comm, k)
                t.execute()
            elif send_split is None:
                # One piece, marked by start() itself: written before.
                src[i][...] = my_rows(comm, k)
                t.start()
                with pytest.raises(dri.Error) as e:
                    t.ready(0)
                assert e.value.code == dri.ERR_STATE, str(e.value)
            else:
                src[i][...] = SENTINEL
                t.start()
                produce(t, src[i], my_rows(comm, k),
                        order(marks, send_split[1], rng))
            if k != 2:
                consume(t, dst[o], my_cols(comm, k), waits, rng, errors, k)
                t.wait()
            errors.same(dst[o], my_cols(comm, k), "frame %d" % k)
    errors.check_all(comm)


def test_piece_ranges(comm):
    """piece() against the rule: even pieces are [k*e/count,
    (k+1)*e/count), explicit ones the bounds given; pieces() gives the
    split, (-1, 1) for a side never split."""
    rows, cols, src, dst = setup_turn(comm, False)
    t = dri.Transfer("ranges")
    t.send(rows, ROWS(), src)
    t.recv(cols, COLS(), dst)
    assert t.pieces(SEND) == (-1, 1) and t.pieces(RECV) == (-1, 1)
    assert t.piece(SEND, 0)[0] == 0
    e = src[0].shape[0]
    t.pieces(SEND, 0, 3)
    assert t.pieces(SEND) == (0, 3)
    assert [t.piece(SEND, k) for k in range(3)] == [
        (k * e // 3, (k + 1) * e // 3) for k in range(3)]
    # A second split replaces the first, up to commit.
    e = dst[0].shape[1]
    bounds = np.array([0, e // 2, e // 2, e], dtype=np.int64)
    t.pieces(RECV, 1, bounds=bounds)
    assert t.pieces(RECV) == (1, 3)
    assert [t.piece(RECV, k) for k in range(3)] == [
        (int(bounds[k]), int(bounds[k + 1])) for k in range(3)]
    t.pieces(RECV, 1, 2)
    assert t.pieces(RECV) == (1, 2)
    t.close()


@pytest.mark.parametrize("shared", [False, True])
def test_explicit_bounds(comm, shared):
    """Each process gives its own boundaries (empty pieces among them), the
    count agreeing across the side; pieces marked in random order, waited
    for in reverse. AUTO: messages over NumPy arrays, the single copy over
    shared memory."""
    rows, cols, src, dst = setup_turn(comm, shared)
    rng = np.random.default_rng(7 + comm.rank)
    errors = Errors()
    e_rows, e_cols = src[0].shape[0], dst[0].shape[1]
    send_bounds = [0, 0, e_rows // 2, e_rows]
    recv_bounds = [0, e_cols // 3, e_cols, e_cols]
    with dri.Transfer("bounds") as t:
        t.send(rows, ROWS(), src)
        t.recv(cols, COLS(), dst)
        t.pieces(SEND, 0, bounds=send_bounds)
        t.pieces(RECV, 1, bounds=recv_bounds)
        t.commit()
        assert [t.piece(SEND, k) for k in range(3)] == list(
            zip(send_bounds[:-1], send_bounds[1:]))
        assert [t.piece(RECV, k) for k in range(3)] == list(
            zip(recv_bounds[:-1], recv_bounds[1:]))
        for k in range(3):
            i, o = t.current_send_buffer, t.current_recv_buffer
            src[i][...] = SENTINEL
            dst[o][...] = SENTINEL
            t.start()
            produce(t, src[i], my_rows(comm, k), order("random", 3, rng))
            consume(t, dst[o], my_cols(comm, k), "reverse", rng, errors, k)
            t.wait()
            errors.same(dst[o], my_cols(comm, k), "frame %d" % k)
    errors.check_all(comm)


def wait_until_arrived(t, q, seconds):
    deadline = time.monotonic() + seconds
    while not t.arrived(q):
        if time.monotonic() > deadline:
            return False
    return True


@pytest.mark.parametrize("strategy,shared", [(dri.Strategy.P2P, False),
                                             (dri.Strategy.AUTO, True)])
def test_receive_pieces_before_the_last_send_piece(comm, strategy, shared):
    """The overlap itself: both sides split along the columns, and each
    process marks its send pieces in order and takes each receive piece as
    soon as every send piece holding its columns is marked (on every
    process: the send blocks span all columns, split alike), checking it
    before marking the next. Until then the piece has not arrived: part of
    it is in this process's own unmarked send pieces. A frame that
    delivered only once every piece was marked would leave every process
    waiting for its first receive piece: after a deadline that is reported,
    the rest marked, and the frame completed, so that no process is left
    behind."""
    sends, recvs = 5, 3
    rows, cols, src, dst = setup_turn(comm, shared)
    errors = Errors()
    c0, _ = block_range(SHAPE[1], comm.size, comm.rank)
    with dri.Transfer("overlap") as t:
        t.send(rows, ROWS(), src)
        t.recv(cols, COLS(), dst)
        t.pieces(SEND, 1, sends)
        t.pieces(RECV, 1, recvs)
        t.strategy(strategy)
        t.commit()
        # The last send piece each receive piece needs (-1: an empty one).
        spans = [t.piece(SEND, j) for j in range(sends)]
        needs = []
        for q in range(recvs):
            lo, hi = t.piece(RECV, q)
            needs.append(max((j for j, (a, b) in enumerate(spans)
                              if a < c0 + hi and c0 + lo < b), default=-1))
        for k in range(2):
            i, o = t.current_send_buffer, t.current_recv_buffer
            src[i][...] = SENTINEL
            dst[o][...] = SENTINEL
            expected = my_cols(comm, k)
            mine = my_rows(comm, k).size > 0  # rows of every receive piece
            t.start()
            late, taken = False, set()
            for j in range(-1, sends):
                if j >= 0:
                    produce(t, src[i], my_rows(comm, k), [j])
                for q in range(recvs):
                    if q in taken:
                        continue
                    if needs[q] > j:
                        if mine and t.arrived(q):
                            errors.append("frame %d: receive piece %d said it "
                                          "had arrived with send piece %d of "
                                          "this process unmarked"
                                          % (k, q, needs[q]))
                        continue
                    taken.add(q)
                    if late:
                        continue
                    if not wait_until_arrived(t, q, 30):
                        late = True
                        errors.append("frame %d: receive piece %d had not "
                                      "arrived with send pieces 0..%d marked "
                                      "everywhere" % (k, q, j))
                        continue
                    where = piece_index(t, RECV, q)
                    errors.same(dst[o][where], expected[where],
                                "frame %d, receive piece %d with send pieces "
                                "0..%d marked" % (k, q, j))
            t.wait()
            errors.same(dst[o], expected, "frame %d" % k)
    errors.check_all(comm)


def check(excinfo, code):
    assert excinfo.value.code == code, str(excinfo.value)


def committed_split(comm, count=3, nbuf=1):
    rows, cols, src, dst = setup_turn(comm, False, nbuf=nbuf)
    t = dri.Transfer("errors")
    t.send(rows, ROWS(), src)
    t.recv(cols, COLS(), dst)
    t.pieces(SEND, 0, count)
    t.pieces(RECV, 1, count)
    t.commit()
    return t, src, dst


@contextlib.contextmanager
def started(t):
    """start(), and a frame completed whatever happens in the block: after a
    failed check, the send pieces not yet marked are marked and the frame
    waited for, so that no process is left waiting for them (closing a
    transfer completes its frame in flight, which needs every piece)."""
    t.start()
    try:
        yield
    except BaseException:
        try:
            for j in range(t.pieces(SEND)[1]):
                try:
                    t.ready(j)
                except dri.Error:
                    pass  # marked already
            t.wait()
        except dri.Error:
            pass  # no send role, or the block had completed the frame
        raise


def test_ready_twice_and_out_of_range(comm):
    """A piece marked twice is ERR_STATE, an index outside [0, count)
    ERR_ARG; neither disturbs the frame, which then completes exactly."""
    t, src, dst = committed_split(comm)
    src[0][...] = my_rows(comm, 0)
    dst[0][...] = SENTINEL
    for k in (-1, 3):
        with pytest.raises(dri.Error) as e:
            t.piece(SEND, k)
        check(e, dri.ERR_ARG)
        with pytest.raises(dri.Error) as e:
            t.piece(RECV, k)
        check(e, dri.ERR_ARG)
    with started(t):
        t.ready(1)
        with pytest.raises(dri.Error) as e:
            t.ready(1)
        check(e, dri.ERR_STATE)
        for call in (t.ready, t.arrived, t.wait_piece):
            for k in (-1, 3, 1 << 20):
                with pytest.raises(dri.Error) as e:
                    call(k)
                check(e, dri.ERR_ARG)
        t.ready(0)
        t.ready(2)
        for q in range(3):
            t.wait_piece(q)
        t.wait()
    np.testing.assert_array_equal(dst[0], my_cols(comm, 0))
    t.close()


def test_outside_a_started_frame(comm):
    """ready(), arrived() and wait_piece() belong to a started frame:
    ERR_STATE before the first start() and after the frame's wait()."""
    t, src, dst = committed_split(comm)

    def refused():
        for call in (t.ready, t.arrived, t.wait_piece):
            with pytest.raises(dri.Error) as e:
                call(0)
            check(e, dri.ERR_STATE)

    refused()
    src[0][...] = my_rows(comm, 0)
    t.execute()
    np.testing.assert_array_equal(dst[0], my_cols(comm, 0))
    refused()
    with started(t):
        for j in range(3):
            t.ready(j)
        t.wait()
    refused()
    t.close()


def test_wait_with_an_unmarked_send_piece(comm):
    """wait() and test() refuse a frame whose send piece is not marked
    (ERR_STATE) and change nothing: the rings have not advanced, and once
    the piece is marked the frame completes with exact data."""
    t, src, dst = committed_split(comm, nbuf=2)
    src[0][...] = SENTINEL
    dst[0][...] = SENTINEL
    rows = my_rows(comm, 5)
    with started(t):
        produce(t, src[0], rows, [2, 0])
        for call in (t.wait, t.test):
            with pytest.raises(dri.Error) as e:
                call()
            check(e, dri.ERR_STATE)
            assert (t.current_send_buffer, t.current_recv_buffer) == (0, 0)
        produce(t, src[0], rows, [1])
        t.wait()
    assert (t.current_send_buffer, t.current_recv_buffer) == (1, 1)
    np.testing.assert_array_equal(dst[0], my_cols(comm, 5))
    # The next frame runs as usual: the refused calls left no state behind.
    src[1][...] = my_rows(comm, 6)
    t.execute()
    np.testing.assert_array_equal(dst[1], my_cols(comm, 6))
    t.close()


def test_split_arguments(comm):
    """Splits are checked when asked for: ERR_STATE without the role or
    after commit, ERR_ARG for a dimension outside the array, a count outside
    [1, MAX_PIECES] and boundaries that break the rule; the binding's own
    ERR_ARG for a combination of arguments that says no one split."""
    rows, cols, src, dst = setup_turn(comm, False, nbuf=1)
    t = dri.Transfer("split arguments")
    for call in (lambda: t.pieces(SEND, 0, 2), lambda: t.pieces(RECV),
                 lambda: t.piece(SEND, 0)):
        with pytest.raises(dri.Error) as e:
            call()
        check(e, dri.ERR_STATE)
    t.send(rows, ROWS(), src)
    t.recv(cols, COLS(), dst)
    e_rows = src[0].shape[0]
    bad = [lambda: t.pieces(SEND, 2, 2), lambda: t.pieces(SEND, -1, 2),
           lambda: t.pieces(SEND, 0, 0),
           lambda: t.pieces(SEND, 0, dri.MAX_PIECES + 1),
           lambda: t.pieces(SEND, 0, bounds=[]),
           lambda: t.pieces(SEND, 0, bounds=[0]),
           lambda: t.pieces(SEND, 0, bounds=[1, e_rows]),
           lambda: t.pieces(SEND, 0, bounds=[0, e_rows + 1]),
           lambda: t.pieces(SEND, 0, bounds=[0, e_rows, 0, e_rows]),
           lambda: t.pieces(SEND, 0, 2, bounds=[0, e_rows]),
           lambda: t.pieces(SEND, 0),
           lambda: t.pieces(SEND, count=2),
           lambda: t.pieces(SEND, bounds=[0, e_rows])]
    for i, call in enumerate(bad):
        with pytest.raises(dri.Error) as e:
            call()
        assert e.value.code == dri.ERR_ARG, "case %d: %s" % (i, e.value)
    # The refusals left the sides unsplit; the largest count is accepted.
    assert t.pieces(SEND) == (-1, 1)
    t.pieces(SEND, 1, dri.MAX_PIECES)
    assert t.pieces(SEND) == (1, dri.MAX_PIECES)
    t.pieces(SEND, 0, 2)
    t.commit()
    with pytest.raises(dri.Error) as e:
        t.pieces(RECV, 1, 2)
    check(e, dri.ERR_STATE)
    assert t.pieces(RECV) == (-1, 1)
    t.close()


@pytest.mark.parametrize("strategy", [dri.Strategy.PACKED,
                                      dri.Strategy.ALLTOALLW])
def test_strategy_that_moves_no_pieces(comm, strategy):
    """Forcing a strategy that moves whole frames on a split transfer fails
    the commit on every process."""
    rows, cols, src, dst = setup_turn(comm, False, nbuf=1)
    with dri.Transfer("whole frames") as t:
        t.send(rows, ROWS(), src)
        t.recv(cols, COLS(), dst)
        t.pieces(RECV, 1, 2)
        t.strategy(strategy)
        with pytest.raises(dri.Error) as e:
            t.commit()
        check(e, dri.ERR_STRATEGY)
        assert not t.committed


@pytest.mark.parametrize("strategy", [dri.Strategy.PACKED,
                                      dri.Strategy.ALLTOALLW])
def test_piece_calls_without_a_split(comm, strategy):
    """On a transfer with no split side every strategy applies, and its one
    receive piece is the whole frame: wait_piece(0) delivers all of it."""
    rows, cols, src, dst = setup_turn(comm, False, nbuf=1)
    errors = Errors()
    with dri.Transfer("one piece") as t:
        t.send(rows, ROWS(), src)
        t.recv(cols, COLS(), dst)
        t.strategy(strategy)
        t.commit()
        assert t.chosen_strategy == strategy
        src[0][...] = my_rows(comm, 4)
        dst[0][...] = SENTINEL
        with started(t):
            t.wait_piece(0)
            if t.arrived(0) is not True:
                errors.append("arrived(0) is not True after wait_piece")
            errors.same(dst[0], my_cols(comm, 4), "the piece on arrival")
            with pytest.raises(dri.Error) as e:
                t.wait_piece(1)
            check(e, dri.ERR_ARG)
            t.wait()
    errors.check_all(comm)


def test_inconsistent_split_across_a_side(comm):
    """Every process of a side splits alike: rank 0 asking for another count
    fails the commit on every process."""
    if comm.size < 2:
        pytest.skip("needs two processes")
    rows, cols, src, dst = setup_turn(comm, False, nbuf=1)
    with dri.Transfer("inconsistent") as t:
        t.send(rows, ROWS(), src)
        t.recv(cols, COLS(), dst)
        t.pieces(SEND, 1, 2 if comm.rank == 0 else 3)
        with pytest.raises(dri.Error) as e:
            t.commit()
        check(e, dri.ERR_INCONSISTENT)


@pytest.mark.parametrize("shared", [False, True])
def test_roles_this_process_lacks(comm, shared):
    """A pure producer has no receive pieces and a pure consumer no send
    pieces (ERR_STATE); the frame between them moves piece by piece."""
    if comm.size < 2:
        pytest.skip("needs two processes")
    data = dri.GlobalData(SHAPE, DTYPE)
    t = dri.Transfer("one way")
    producer = comm.rank == 0
    if producer:
        whole = dri.Distribution(data, "whole,whole", [0])
        src = (whole.empty(ROWS(), 1) if shared
               else [np.empty(SHAPE, DTYPE)])
        src[0][...] = SENTINEL
        t.send(whole, ROWS(), src)
        t.pieces(SEND, 0, 4)
    else:
        consumers = list(range(1, comm.size))
        cols = dri.Distribution(data, "whole,block", consumers)
        shape = cols.block(COLS()).shape
        dst = (cols.empty(COLS(), 1) if shared
               else [np.empty(shape[::-1], DTYPE).T])
        dst[0][...] = SENTINEL
        t.recv(cols, COLS(), dst)
        t.pieces(RECV, 1, 2)
    dri.commit(dri.COMM_WORLD, [t])
    errors = Errors()
    with started(t):
        missing = (t.arrived, t.wait_piece) if producer else (t.ready,)
        for call in missing:
            with pytest.raises(dri.Error) as e:
                call(0)
            check(e, dri.ERR_STATE)
        if producer:
            produce(t, src[0], frame(SHAPE, 9, DTYPE), [3, 1, 0, 2])
        else:
            first, last = block_range(SHAPE[1], comm.size - 1, comm.rank - 1)
            expected = frame(SHAPE, 9, DTYPE)[:, first:last + 1]
            consume(t, dst[0], expected, "reverse", None, errors)
        t.wait()
    if not producer:
        errors.same(dst[0], expected, "the frame")
    t.close()
    errors.check_all(comm)


def test_wait_piece_releases_the_gil(comm):
    """Other Python threads run while wait_piece() blocks: a consumer's
    worker thread (which makes no dri or MPI call, as MPI_THREAD_FUNNELED
    requires) keeps counting while the piece is held back by the producer,
    which marks it half a second after everyone has started."""
    if comm.size < 2:
        pytest.skip("needs two processes")
    data = dri.GlobalData(SHAPE, DTYPE)
    t = dri.Transfer("gil")
    producer = comm.rank == 0
    if producer:
        whole = dri.Distribution(data, "whole,whole", [0])
        src = [np.empty(SHAPE, DTYPE)]
        t.send(whole, ROWS(), src)
        t.pieces(SEND, 0, 2)
    else:
        cols = dri.Distribution(data, "whole,block", list(range(1, comm.size)))
        shape = cols.block(COLS()).shape
        t.recv(cols, COLS(), [np.empty(shape[::-1], DTYPE).T])
    dri.commit(dri.COMM_WORLD, [t])
    ticks, stop = [], threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(time.monotonic())

    with started(t):
        comm.barrier()  # every process has started the frame
        if producer:
            time.sleep(0.5)
            produce(t, src[0], frame(SHAPE, 1, DTYPE), [1, 0])
        else:
            worker = threading.Thread(target=count)
            worker.start()
            enter = time.monotonic()
            t.wait_piece(0)
            leave = time.monotonic()
            stop.set()
            worker.join()
        t.wait()
    t.close()
    errors = Errors()
    if not producer:
        # Held for about 0.5 s: ticks well inside the call, not just at its
        # edges (where the interpreter may switch threads anyway).
        inside = [x for x in ticks if enter + 0.05 < x < leave - 0.05]
        if leave - enter < 0.2:
            errors.append("wait_piece did not wait: %.3f s" % (leave - enter))
        elif not inside:
            errors.append("no other thread ran during %.3f s in wait_piece"
                          % (leave - enter))
    errors.check_all(comm)
