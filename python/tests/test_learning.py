"""AUTO that learns (issue 46), from Python: the routes a committed corner
turn holds, exact data over enough calls to learn and re-check, the counters,
freezing, the learning modes and their errors, raised on every rank alike."""

import os
import tempfile

import numpy as np
import pytest

import dri
from oracle import block_range, frame

SHAPE = (12, 10)
DTYPE = np.float64


def turn(comm, mode=None, strategy=None, learned_file=None):
    """Row blocks into column blocks of plain NumPy arrays, rings of 2."""
    data = dri.GlobalData(SHAPE, DTYPE)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    layout = dri.Layout.packed(2)
    t = dri.Transfer("learning")
    send = [np.empty(rows.block(layout).shape, DTYPE) for _ in range(2)]
    recv = [np.empty(cols.block(layout).shape, DTYPE) for _ in range(2)]
    t.send(rows, layout, send)
    t.recv(cols, layout, recv)
    if mode is not None:
        t.learning(mode)
    if strategy is not None:
        t.strategy(strategy)
    if learned_file is not None:
        t.learned_file(learned_file)
    t.commit()
    return t


def run(t, comm, frames):
    """`frames` reorganizations, each checked against the oracle; the number
    of wrong frames on any rank."""
    r0, r1 = block_range(SHAPE[0], comm.size, comm.rank)
    c0, c1 = block_range(SHAPE[1], comm.size, comm.rank)
    wrong = 0
    for k in range(frames):
        t.send_buffers[t.current_send_buffer][...] = frame(SHAPE, k, DTYPE)[r0:r1 + 1, :]
        into = t.current_recv_buffer
        t.execute()
        wrong += not np.array_equal(t.recv_buffers[into], frame(SHAPE, k, DTYPE)[:, c0:c1 + 1])
    return int(comm.allreduce(float(wrong), "max"))


def test_routes_and_counters(comm):
    t = turn(comm)
    routes = t.routes()
    if comm.size == 1:
        # Alone, no process reads from another: the static rule's one route.
        assert len(routes) == 1
        assert t.learning_state()["state"] == dri.RouteState.ONE
        return
    assert len(routes) == 3
    assert routes[0][0] == t.chosen_strategy
    assert all(seconds == -1 for _, seconds in routes)  # nothing timed before the first call
    assert run(t, comm, 60) == 0
    state = t.learning_state()
    assert state["state"] == dri.RouteState.SETTLED
    assert state["calls"] == 60
    # The first calls (18), and the three re-checks allowed right after them
    # (each other route once, a switched-from route once more).
    assert 0 < state["explored"] <= 27
    assert t.chosen_strategy in [s for s, _ in t.routes()]
    # The times behind the last decision are the same on every rank.
    times = [seconds for _, seconds in t.routes()]
    assert all(comm.allreduce(s, "max") == comm.allreduce(s, "min") for s in times)
    t.close()


def test_freeze_and_modes(comm):
    if comm.size == 1:
        return
    t = turn(comm)
    assert run(t, comm, 5) == 0
    t.freeze()
    state = t.learning_state()
    assert state["state"] == dri.RouteState.FROZEN
    assert run(t, comm, 40) == 0
    assert t.learning_state()["explored"] == state["explored"]
    t.freeze(False)
    assert t.learning_state()["state"] != dri.RouteState.FROZEN
    t.close()
    off = turn(comm, dri.Learning.OFF)
    assert len(off.routes()) == 1
    assert run(off, comm, 3) == 0
    off.close()
    once = turn(comm, dri.Learning.ONCE)
    assert run(once, comm, 40) == 0
    assert once.learning_state()["state"] == dri.RouteState.FROZEN
    once.close()
    forced = turn(comm, strategy=dri.Strategy.PACKED)
    assert forced.routes() == [(dri.Strategy.PACKED, -1.0)]
    forced.close()


def test_errors(comm):
    data = dri.GlobalData(SHAPE, DTYPE)
    rows = dri.Distribution(data, "block,whole", comm)
    layout = dri.Layout.packed(2)
    t = dri.Transfer("not committed")
    t.send(rows, layout, [np.empty(rows.block(layout).shape, DTYPE)])
    with pytest.raises(dri.Error) as e:
        t.freeze()
    assert e.value.code == dri.ERR_STATE
    with pytest.raises(dri.Error) as e:
        t.routes()
    assert e.value.code == dri.ERR_STATE
    with pytest.raises(TypeError):
        t.learning(7)
    t.close()
    c = turn(comm)
    with pytest.raises(dri.Error) as e:
        c.learning(dri.Learning.OFF)
    assert e.value.code == dri.ERR_STATE
    c.close()


def test_learned_file(comm):
    """What a transfer learned, saved and started from; a damaged file is
    ignored (the transfer learns from nothing); a bad path fails on every
    rank."""
    pid = int(comm.allreduce(float(os.getpid() if comm.rank == 0 else 0), "max"))
    path = os.path.join(tempfile.gettempdir(), "dri-learned-py-%d" % pid)
    try:
        t = turn(comm)
        assert run(t, comm, 30) == 0
        assert not t.learned_seeded()
        t.save_learned(path)
        learned = t.chosen_strategy
        t.close()
        if comm.size == 1:
            # One route: nothing to save, no file written.
            assert not os.path.exists(path)
            return
        seeded = turn(comm, learned_file=path)
        assert seeded.learned_seeded()
        assert seeded.chosen_strategy == learned
        assert run(seeded, comm, 10) == 0
        seeded.close()
        comm.barrier()
        if comm.rank == 0:
            with open(path, "r+b") as f:
                f.seek(30)
                f.write(b"#")
        comm.barrier()
        damaged = turn(comm, learned_file=path)
        assert not damaged.learned_seeded()
        assert run(damaged, comm, 5) == 0
        with pytest.raises(dri.Error) as e:
            damaged.save_learned("" if comm.rank == comm.size - 1 else path)
        assert e.value.code == dri.ERR_ARG
        damaged.close()
    finally:
        comm.barrier()
        if comm.rank == 0 and os.path.exists(path):
            os.remove(path)
