"""dri.shared_arrays: NumPy's own allocations (np.empty, np.zeros, copies,
ufunc results) in node shared memory through a NumPy memory handler
(NEP 49). The threshold, what NumPy does with such arrays (pickle, copies,
views, resize), their lifetime beyond the handler's, the switch and its
scopes, and a corner turn between plain np.empty arrays that AUTO moves by
the single copy."""

import contextlib
import copy
import gc
import os
import pickle
import threading

import numpy as np
import pytest

import dri
from oracle import block_range, frame

#: Handler arrays alive until the interpreter exits: they are freed at its
#: teardown, after dri's finalize and MPI_Finalize (a crash there fails the
#: ctest that runs this file).
KEPT_UNTIL_EXIT = []

PAGE = 4096


def handler_name(a=None):
    """The name of a's handler, or of the current one."""
    get = np.core.multiarray.get_handler_name
    return get() if a is None else get(a)


def live():
    return dri.shared_arrays_stats()["live"]


def stat(name):
    return dri.shared_arrays_stats()[name]


@contextlib.contextmanager
def cache_of(max_bytes):
    """The cache of freed blocks emptied and capped at max_bytes for the
    block; its cap restored and the cache emptied again after it."""
    dri.shared_arrays_trim()
    old = dri.shared_arrays_cache(max_bytes)
    try:
        yield
    finally:
        dri.shared_arrays_cache(old)
        dri.shared_arrays_trim()


def test_api_is_documented():
    for name in ("shared_arrays", "set_shared_arrays", "shared_arrays_enabled",
                 "shared_arrays_stats", "in_shared_memory",
                 "shared_arrays_cache", "shared_arrays_trim",
                 "SHARED_ARRAYS_MIN_BYTES", "SHARED_ARRAYS_CACHE_BYTES"):
        assert name in dri.__all__
    for f in (dri.shared_arrays, dri.set_shared_arrays,
              dri.shared_arrays_enabled, dri.shared_arrays_stats,
              dri.in_shared_memory, dri.shared_arrays_cache,
              dri.shared_arrays_trim):
        assert "shared memory" in f.__doc__ or "shared_arrays" in f.__doc__
    assert "cache" in dri.shared_arrays_stats.__doc__
    assert dri.SHARED_ARRAYS_MIN_BYTES == 1 << 20
    assert dri.shared_arrays().min_bytes == dri.SHARED_ARRAYS_MIN_BYTES
    assert dri.SHARED_ARRAYS_CACHE_BYTES == 256 << 20
    assert dri.shared_arrays_cache() == dri.SHARED_ARRAYS_CACHE_BYTES
    assert set(dri.shared_arrays_stats()) == {
        "live", "live_bytes", "allocated", "reused", "cached", "cached_bytes"}


def test_threshold_respected():
    with dri.shared_arrays(4 * PAGE) as scope:
        assert scope.min_bytes == 4 * PAGE
        below = np.empty(4 * PAGE - 1, np.uint8)
        at = np.empty(4 * PAGE, np.uint8)
        above = np.empty((3, PAGE), np.float64)
    assert not dri.in_shared_memory(below)
    # Ours all the same, in malloc's memory.
    assert handler_name(below) == "dri_shared_arrays"
    assert dri.in_shared_memory(at) and dri.in_shared_memory(above)
    assert at.ctypes.data % PAGE == 0


def test_default_threshold():
    with dri.shared_arrays():
        at = np.empty(dri.SHARED_ARRAYS_MIN_BYTES, np.uint8)
        below = np.empty(dri.SHARED_ARRAYS_MIN_BYTES - 1, np.uint8)
    assert dri.in_shared_memory(at) and not dri.in_shared_memory(below)


def test_constructors_give_right_values():
    with dri.shared_arrays(PAGE):
        # Memory once dirtied and freed: np.zeros must not see it again.
        junk = np.empty(64 * PAGE, np.uint8)
        junk[...] = 0xAB
        del junk
        arrays = {"zeros": np.zeros((64, 128)),
                  "ones": np.ones(8192, np.int32),
                  "full": np.full((100, 100), 2.5, np.float32),
                  "arange": np.arange(10000, dtype=np.int64),
                  "empty": np.empty((200, 50), np.complex64),
                  "zeros_like": np.zeros_like(np.ones((64, 64)))}
        arrays["empty"][...] = 1 + 2j
        arrays["sum"] = arrays["arange"] + arrays["arange"]  # a ufunc's output
    for a in arrays.values():
        assert dri.in_shared_memory(a)
    assert not arrays["zeros"].any() and not arrays["zeros_like"].any()
    assert (arrays["ones"] == 1).all() and (arrays["full"] == 2.5).all()
    assert (arrays["empty"] == 1 + 2j).all()
    np.testing.assert_array_equal(arrays["arange"], np.arange(10000))
    np.testing.assert_array_equal(arrays["sum"], 2 * np.arange(10000))


def test_memory_pressure_around_the_threshold():
    """Thousands of arrays of random sizes around the threshold, made and
    dropped in random order: every byte intact while alive, and the live
    count back where it was."""
    rng = np.random.default_rng(1234 + dri.COMM_WORLD.rank)
    threshold = 16 * PAGE
    before = dri.shared_arrays_stats()
    pool, made_shared = [], 0
    with dri.shared_arrays(threshold):
        for k in range(3000):
            n = int(rng.integers(threshold // 2, 2 * threshold))
            a = np.zeros(n, np.uint8) if k % 3 == 0 else np.empty(n, np.uint8)
            made_shared += n >= threshold
            assert dri.in_shared_memory(a) == (n >= threshold)
            a[...] = k % 251
            pool.append((k % 251, a))
            if len(pool) > 40:  # drop one at random, checking it first
                stamp, old = pool.pop(int(rng.integers(len(pool))))
                assert old.min() == old.max() == stamp  # allocates nothing
    del a, old  # the last ones made and dropped
    shared = sum(dri.in_shared_memory(a) for _, a in pool)
    assert live() == before["live"] + shared
    for stamp, a in pool:
        assert (a == stamp).all()
    del pool, a
    after = dri.shared_arrays_stats()
    assert after["live"] == before["live"]
    assert after["live_bytes"] == before["live_bytes"]
    assert after["allocated"] == before["allocated"] + made_shared


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_pickle(protocol):
    with dri.shared_arrays(PAGE):
        a = np.arange(4096, dtype=np.float64).reshape(64, 64)
        b = pickle.loads(pickle.dumps(a, protocol=protocol))
    assert dri.in_shared_memory(a)
    np.testing.assert_array_equal(a, b)
    assert b.dtype == a.dtype and b.shape == a.shape


def test_pickle_out_of_band_shares_the_memory():
    """Protocol 5 with out-of-band buffers: the loaded array is a view of the
    same shared memory."""
    with dri.shared_arrays(PAGE):
        a = np.arange(8192, dtype=np.int32)
    buffers = []
    data = pickle.dumps(a, protocol=5, buffer_callback=buffers.append)
    b = pickle.loads(data, buffers=buffers)
    assert np.shares_memory(a, b) and dri.in_shared_memory(b)
    np.testing.assert_array_equal(a, b)


def test_copies():
    with dri.shared_arrays(PAGE):
        a = np.arange(10000, dtype=np.float64)
        copies = [np.copy(a), a.copy(), copy.deepcopy(a), copy.copy(a)]
    outside = [np.copy(a), a.copy(), copy.deepcopy(a)]
    for c in copies:
        assert dri.in_shared_memory(c) and not np.shares_memory(a, c)
        np.testing.assert_array_equal(c, a)
    for c in outside:  # made after the scope: NumPy's default memory
        assert not dri.in_shared_memory(c)
        assert handler_name(c) != "dri_shared_arrays"
        np.testing.assert_array_equal(c, a)


def test_views():
    with dri.shared_arrays(PAGE):
        a = np.arange(64 * 80, dtype=np.float64).reshape(64, 80)
    views = [a[3:10, 5:], a.T, a[::-1, ::-2], a.view(np.uint8),
             a.view(np.complex128), a.reshape(80, 64), a.ravel(), a[5],
             a[2:2]]
    for v in views:
        assert dri.in_shared_memory(v)
        assert v.size == 0 or np.shares_memory(a, v)
    assert dri.in_shared_memory(memoryview(a))
    np.testing.assert_array_equal(a.T[7], a[:, 7])
    assert a.view(np.complex128)[1, 0] == a[1, 0] + 1j * a[1, 1]


def test_resize_grow_and_shrink():
    """ndarray.resize reallocates through the array's own handler, also
    after the scope: a shared array moves to a new block chosen by the
    threshold, data preserved; a small one grows in ordinary memory
    (realloc)."""
    with dri.shared_arrays(16 * PAGE):
        a = np.arange(10000, dtype=np.float64)  # 80000 bytes: shared
        a.resize(20000)  # the normal (refcheck) path
        assert dri.in_shared_memory(a)
        np.testing.assert_array_equal(a[:10000], np.arange(10000))
        assert not a[10000:].any()  # NumPy zero-fills the growth
        a[...] = np.arange(20000)
        a.resize(40000, refcheck=False)
        assert dri.in_shared_memory(a)
        np.testing.assert_array_equal(a[:20000], np.arange(20000))
        small = np.arange(1000, dtype=np.float64)
        small.resize(20000)
        assert not dri.in_shared_memory(small)
        np.testing.assert_array_equal(small[:1000], np.arange(1000))
    a.resize(100, refcheck=False)  # below the threshold: ordinary memory
    assert not dri.in_shared_memory(a)
    np.testing.assert_array_equal(a, np.arange(100))
    a.resize((10, 10))
    np.testing.assert_array_equal(a[3], np.arange(30, 40))


def test_arrays_outlive_the_handler():
    before = live()
    with dri.shared_arrays(PAGE) as scope:
        a = np.full(10000, 7, np.int64)
    del scope  # the handler object too: the array holds its capsule
    assert handler_name() == "default_allocator"
    assert handler_name(a) == "dri_shared_arrays"
    assert dri.in_shared_memory(a) and (a == 7).all() and live() == before + 1
    a += 1
    assert (a == 8).all()
    del a
    assert live() == before


def test_nested_scopes_and_exceptions():
    mid = 64 * PAGE  # between the inner and the outer threshold
    outer, inner = dri.shared_arrays(128 * PAGE), dri.shared_arrays(PAGE)
    with outer:
        assert not dri.in_shared_memory(np.empty(mid, np.uint8))
        with pytest.raises(ZeroDivisionError):
            with inner:
                assert dri.in_shared_memory(np.empty(mid, np.uint8))
                with outer:  # the same object entered again inside itself
                    assert not dri.in_shared_memory(np.empty(mid, np.uint8))
                assert dri.in_shared_memory(np.empty(mid, np.uint8))
                1 / 0
        assert dri.shared_arrays_enabled()
        assert not dri.in_shared_memory(np.empty(mid, np.uint8))
        assert dri.in_shared_memory(np.empty(128 * PAGE, np.uint8))
    assert not dri.shared_arrays_enabled()
    assert handler_name() == "default_allocator"
    with pytest.raises(dri.Error) as e:
        inner.__exit__(None, None, None)
    assert e.value.code == dri.ERR_STATE


def test_set_shared_arrays_switch():
    assert not dri.shared_arrays_enabled()
    try:
        dri.set_shared_arrays(True, min_bytes=PAGE)
        assert dri.shared_arrays_enabled()
        a = np.ones(PAGE)
        assert dri.in_shared_memory(a)
        dri.set_shared_arrays(True)  # the default threshold now
        assert not dri.in_shared_memory(np.ones(PAGE))
    finally:
        dri.set_shared_arrays(False)
    assert not dri.shared_arrays_enabled()
    assert handler_name() == "default_allocator"
    assert not dri.in_shared_memory(np.ones(PAGE))
    assert dri.in_shared_memory(a) and (a == 1).all()
    with pytest.raises(dri.Error) as e:
        dri.shared_arrays(-1)
    assert e.value.code == dri.ERR_ARG


def test_setting_is_per_thread():
    """NumPy's handler is a context variable: a thread started inside the
    scope begins with NumPy's default."""
    seen = {}

    def worker():
        seen["enabled"] = dri.shared_arrays_enabled()
        seen["shared"] = dri.in_shared_memory(np.empty(64 * PAGE, np.uint8))

    with dri.shared_arrays(PAGE):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert dri.shared_arrays_enabled()
    assert seen == {"enabled": False, "shared": False}


def test_in_shared_memory_covers_only_the_handler():
    assert not dri.in_shared_memory(np.ones(1 << 20, np.uint8))
    assert not dri.in_shared_memory(b"bytes")
    # dri.empty's memory is shared too, but not this handler's.
    assert not dri.in_shared_memory(dri.empty((512, 512)))
    with pytest.raises(dri.Error) as e:
        dri.in_shared_memory(42)
    assert e.value.code == dri.ERR_ARG


def test_corner_turn_between_plain_numpy_arrays(comm):
    """Send and receive rings from np.empty under the handler: AUTO picks the
    single copy on more than one process, every frame exact."""
    shape, dtype = (96, 80), np.complex128
    data = dri.GlobalData(shape, dtype)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    rl, cl = dri.Layout.packed(2), dri.Layout.ordered([1, 0])
    with dri.shared_arrays(PAGE):
        src = [np.empty(rows.block(rl).shape, dtype) for _ in range(2)]
        dst = [np.empty(cols.block(cl).shape, dtype, order="F")
               for _ in range(2)]
    assert all(dri.in_shared_memory(a) for a in src + dst)
    first, last = block_range(shape[0], comm.size, comm.rank)
    c0, c1 = block_range(shape[1], comm.size, comm.rank)
    with dri.Transfer("handler arrays") as t:
        t.send(rows, rl, src)
        t.recv(cols, cl, dst)
        t.commit()
        if comm.size > 1 and os.environ.get("DRI_SHARED_MEMORY") != "off":
            assert t.chosen_strategy == dri.Strategy.SHARED
        for k in range(4):
            src[k % 2][...] = frame(shape, k, dtype)[first:last + 1]
            t.execute()
            np.testing.assert_array_equal(
                dst[k % 2], frame(shape, k, dtype)[:, c0:c1 + 1])
    del src, dst


# --- the cache of freed blocks ---------------------------------------------


def test_cache_serves_a_loop_of_temporaries():
    """b = a * 2 in a loop: each new b takes the block the b before the last
    freed, `reused` grows by one a step, the same two blocks take turns, and
    `live` goes back to where it was."""
    n = 77 * PAGE // 8  # float64 elements: a size no other test uses
    with cache_of(dri.SHARED_ARRAYS_CACHE_BYTES), dri.shared_arrays(PAGE):
        before = dri.shared_arrays_stats()
        a = np.arange(n, dtype=np.float64)
        b = a * 2
        blocks = set()
        for k in range(50):
            b = a * 2
            blocks.add(b.ctypes.data)
            assert dri.in_shared_memory(b)
            assert b[k] == 2 * k  # allocates nothing
        after = dri.shared_arrays_stats()
    # a, b and 50 b's: all but the first b of the loop from the cache.
    assert after["allocated"] - before["allocated"] == 52
    assert after["reused"] - before["reused"] == 49
    np.testing.assert_array_equal(b, 2 * np.arange(n))
    del a, b
    assert len(blocks) == 2
    assert live() == before["live"]
    assert stat("live_bytes") == before["live_bytes"]


def test_cache_respects_its_cap():
    """Thousands of arrays of random sizes made and dropped at random: the
    cache never holds more than its cap in bytes, nor 256 blocks; lowering
    the cap keeps the most recently freed blocks."""
    rng = np.random.default_rng(4321 + dri.COMM_WORLD.rank)
    cap = 64 * PAGE
    with cache_of(cap), dri.shared_arrays(PAGE):
        before = dri.shared_arrays_stats()
        pool = []
        for k in range(2000):
            n = int(rng.integers(2, 40)) * PAGE - int(rng.integers(0, PAGE))
            pool.append(np.empty(n, np.uint8))
            if len(pool) > 8:
                del pool[int(rng.integers(len(pool)))]
            s = dri.shared_arrays_stats()
            assert s["cached_bytes"] <= cap and s["cached_bytes"] % PAGE == 0
        del pool
        s = dri.shared_arrays_stats()
        assert s["cached_bytes"] <= cap and s["live"] == before["live"]
        assert s["reused"] > before["reused"]

    with cache_of(dri.SHARED_ARRAYS_CACHE_BYTES), dri.shared_arrays(PAGE):
        arrays = [np.empty(2 * PAGE, np.uint8) for _ in range(300)]
        order = [a.ctypes.data for a in arrays]
        while arrays:  # freed in order: the last 256 stay
            arrays.pop(0)
        s = dri.shared_arrays_stats()
        assert s["cached"] == 256 and s["cached_bytes"] == 256 * 2 * PAGE
        previous = dri.shared_arrays_cache(10 * 2 * PAGE)
        assert previous == dri.SHARED_ARRAYS_CACHE_BYTES
        assert stat("cached") == 10
        again = [np.empty(2 * PAGE, np.uint8) for _ in range(10)]
        assert {a.ctypes.data for a in again} == set(order[-10:])
        del again
    with pytest.raises(dri.Error) as e:
        dri.shared_arrays_cache(-1)
    assert e.value.code == dri.ERR_ARG


def test_zeros_from_a_reused_block():
    """np.zeros (calloc) on a block a freed np.ones left: all zeros. A block
    up to 1/8 larger than asked serves too (the smallest that fits), not a
    larger one."""
    n = 48 * PAGE
    with cache_of(dri.SHARED_ARRAYS_CACHE_BYTES), dri.shared_arrays(PAGE):
        a = np.ones(n // 8)
        block = a.ctypes.data
        del a
        reused = stat("reused")
        z = np.zeros(n // 8)
        assert z.ctypes.data == block and stat("reused") == reused + 1
        assert not z.any()
        z[...] = -1
        del z
        z = np.zeros((n // 4 // 64, 64), np.int32)  # same bytes, other shape
        assert z.ctypes.data == block and not z.any()
        del z
        dri.shared_arrays_trim()
        # Blocks of 54, 50 and 60 pages; 48 asked (at most 54 serve).
        freed = {k: np.full(k * PAGE, 0xAB, np.uint8) for k in (54, 50, 60)}
        at = {k: a.ctypes.data for k, a in freed.items()}
        del freed
        z = np.zeros(n - 100, np.uint8)
        assert z.ctypes.data == at[50] and not z.any()
        y = np.zeros(n, np.uint8)
        assert y.ctypes.data == at[54] and not y.any()
        reused = stat("reused")
        x = np.zeros(n, np.uint8)  # 60 pages are more than 1/8 over 48
        assert stat("reused") == reused and x.ctypes.data != at[60]
        assert not x.any()
        del x, y, z


def test_trim_empties_the_cache():
    with cache_of(dri.SHARED_ARRAYS_CACHE_BYTES), dri.shared_arrays(PAGE):
        arrays = [np.ones(k * PAGE, np.uint8) for k in range(2, 10)]
        before = live()
        del arrays
        s = dri.shared_arrays_stats()
        assert s["live"] == before - 8
        assert s["cached"] == 8
        assert s["cached_bytes"] == sum(k * PAGE for k in range(2, 10))
        assert dri.shared_arrays_trim() == s["cached_bytes"]
        s = dri.shared_arrays_stats()
        assert s["cached"] == 0 and s["cached_bytes"] == 0
        assert dri.shared_arrays_trim() == 0
        assert live() == before - 8


def test_cap_and_larger_blocks():
    """A block larger than the cap is released, not kept; one of the cap's
    size is kept, and goes when a later one needs the room. 0: no cache."""
    cap = 16 * PAGE
    with cache_of(cap), dri.shared_arrays(PAGE):
        small = np.empty(8 * PAGE, np.uint8)
        exact = np.empty(16 * PAGE - 100, np.uint8)  # 16 pages mapped
        big = np.empty(16 * PAGE + 1, np.uint8)  # 17
        del big
        assert stat("cached") == 0
        del exact
        assert stat("cached") == 1 and stat("cached_bytes") == cap
        del small  # 24 pages: the least recently freed goes
        assert stat("cached") == 1 and stat("cached_bytes") == 8 * PAGE
    with cache_of(0), dri.shared_arrays(PAGE):
        reused = stat("reused")
        for _ in range(5):
            a = np.ones(8 * PAGE, np.uint8)
            a.resize(9 * PAGE, refcheck=False)
            del a
        assert stat("cached") == 0 and stat("reused") == reused


def test_committed_transfer_holds_its_blocks_and_reused_blocks_share(comm):
    """Ring arrays on blocks taken from the cache, twice (the second time on
    blocks a closed transfer had published to its peers): AUTO chooses
    SHARED on more than one process and every frame is exact. While the
    transfer lives it holds its arrays: dropping every other reference
    caches nothing; closing it gives the four blocks back."""
    shape, dtype = (96, 80), np.complex128
    data = dri.GlobalData(shape, dtype)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    rl, cl = dri.Layout.packed(2), dri.Layout.ordered([1, 0])
    first, last = block_range(shape[0], comm.size, comm.rank)
    c0, c1 = block_range(shape[1], comm.size, comm.rank)
    shared_memory_off = os.environ.get("DRI_SHARED_MEMORY") == "off"

    def ring():
        return ([np.full(rows.block(rl).shape, 99 + 9j, dtype)
                 for _ in range(2)],
                [np.full(cols.block(cl).shape, -1, dtype, order="F")
                 for _ in range(2)])

    # Only the rings are the handler's: the checks' temporaries are not.
    with cache_of(dri.SHARED_ARRAYS_CACHE_BYTES):
        with dri.shared_arrays(PAGE):
            junk = ring()  # dirty blocks of the rings' sizes, freed
        freed = {a.ctypes.data for a in junk[0] + junk[1]}
        del junk
        for round in range(2):
            reused = stat("reused")
            with dri.shared_arrays(PAGE):
                src, dst = ring()
            assert stat("reused") == reused + 4
            assert {a.ctypes.data for a in src + dst} == freed
            assert all(dri.in_shared_memory(a) for a in src + dst)
            with dri.Transfer(f"reused blocks {round}") as t:
                t.send(rows, rl, src)
                t.recv(cols, cl, dst)
                t.commit()
                if comm.size > 1 and not shared_memory_off:
                    assert t.chosen_strategy == dri.Strategy.SHARED
                gc.collect()  # earlier tests' garbage
                cached, held = stat("cached"), live()
                del src, dst
                gc.collect()
                assert stat("cached") == cached and live() == held
                for k in range(4):
                    f = frame(shape, k, dtype)
                    t.send_buffers[k % 2][...] = f[first:last + 1]
                    t.execute()
                    np.testing.assert_array_equal(t.recv_buffers[k % 2],
                                                  f[:, c0:c1 + 1])
            assert stat("cached") == cached + 4 and live() == held - 4


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_fork_never_reuses_a_block_from_before():
    """Blocks alive or cached at a fork are shared by both processes: neither
    reuses them. The child's stale cache is released, the array alive at
    the fork is released when dropped (in both), new ones are cached."""
    n = 23 * PAGE
    with cache_of(dri.SHARED_ARRAYS_CACHE_BYTES), dri.shared_arrays(PAGE):
        cached_at_fork = np.empty(n, np.uint8)
        del cached_at_fork
        alive = np.full(n + PAGE, 7, np.uint8)
        assert stat("cached") == 1
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: reports through the pipe, never returns
            ok = False
            try:
                reused = stat("reused")
                a = np.empty(n, np.uint8)
                ok = stat("reused") == reused and stat("cached") == 0
                a[...] = 1
                del alive
                ok = ok and stat("cached") == 0
                del a
                ok = ok and stat("cached") == 1
            finally:
                os.write(w, b"y" if ok else b"n")
                os._exit(0)
        os.close(w)
        answer = os.read(r, 1)
        os.close(r)
        os.waitpid(pid, 0)
        assert answer == b"y"
        assert alive.min() == alive.max() == 7  # allocates nothing
        reused = stat("reused")
        b = np.empty(n, np.uint8)
        assert stat("reused") == reused and stat("cached") == 0
        del alive
        assert stat("cached") == 0
        del b
        assert stat("cached") == 1


def test_allocation_and_release_without_dri(comm):
    """Neither needs dri initialized: arrays made before dri.finalize() are
    freed after it, arrays are made while dri is down, and some are kept
    until the interpreter exits, past MPI_Finalize."""
    before = live()
    with dri.shared_arrays(PAGE):
        made_up = np.arange(20000, dtype=np.float64)
        KEPT_UNTIL_EXIT.append(np.ones(30000))
        dri.finalize()
        try:
            assert not dri.initialized()
            del made_up
            made_down = np.arange(20000, dtype=np.float64)
            assert dri.in_shared_memory(made_down)
            KEPT_UNTIL_EXIT.append(np.full(30000, 3.0))
        finally:
            dri.init()
    assert dri.initialized()
    np.testing.assert_array_equal(made_down, np.arange(20000))
    del made_down
    assert live() == before + len(KEPT_UNTIL_EXIT)
