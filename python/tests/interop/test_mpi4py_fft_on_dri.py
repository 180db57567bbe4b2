"""dri.mpi4py_fft against mpi4py-fft's own Transfer: the same bytes from
forward() and backward() for every pencil pair of slabs and 2-D pencils,
every dtype mpi4py-fft moves (long double included), C and Fortran ordered
arrays, and new arrays mixed with cached ones past the cache's size; the
same checks, raised on every process; install() and uninstall(); a
Transfer used after destroy(). Needs mpi4py-fft and mpi4py on dri's MPI
library (an Open MPI build); skipped otherwise."""

import importlib.util

import numpy as np
import pytest

import dri
import dri.mpi4py_fft as dmf

if importlib.util.find_spec("mpi4py_fft") is None:
    pytest.skip("mpi4py-fft is not installed (python3-mpi4py-fft)",
                allow_module_level=True)

DTYPES = [np.float32, np.float64, np.longdouble, np.complex64, np.complex128,
          np.clongdouble, np.int32, np.int64]


@pytest.fixture
def original(MPI):
    """mpi4py-fft's own Transfer, whatever install() did."""
    import mpi4py_fft.pencil as pencil
    dmf.uninstall()
    yield pencil.Transfer
    dmf.uninstall()


class Pencils:
    """Every pair (pencil, pencil(j)) of slabs and, at 4 ranks, 2-D
    pencils; the subcommunicators are freed at the end of the block."""

    def __init__(self, MPI, shape):
        self.MPI, self.shape, self.subs = MPI, shape, []

    def __enter__(self):
        from mpi4py_fft.pencil import Pencil, Subcomm
        dims = [[0, 1, 1], [1, 1, 0]]
        if self.MPI.COMM_WORLD.Get_size() == 4:
            dims += [[0, 0, 1], [1, 0, 0]]
        pairs = []
        for d in dims:
            self.subs.append(Subcomm(self.MPI.COMM_WORLD, d))
            p0 = Pencil(self.subs[-1], self.shape, axis=d.index(1))
            pairs += [(p0, p0.pencil(j)) for j in range(3) if j != p0.axis]
        return pairs

    def __exit__(self, *exc):
        for sub in self.subs:
            sub.destroy()


def args(pa, pb, dtype):
    """Pencil.transfer's arguments to Transfer."""
    comm = pa.subcomm[pb.axis]
    shape = list(pa.subshape)
    shape[pb.axis] = pa.shape[pb.axis]
    return (comm, shape, dtype, pa.subshape, pa.axis, pb.subshape, pb.axis)


def random(shape, dtype, rng):
    raw = rng.integers(0, 256, int(np.prod(shape)) * np.dtype(dtype).itemsize, np.uint8)
    return raw.view(dtype).reshape(shape)


def same_bytes(x, y):
    return x.shape == y.shape and np.array_equal(
        np.ascontiguousarray(x).view(np.uint8), np.ascontiguousarray(y).view(np.uint8))


def compare(pa, pb, dtype, original, rng, arrays=None):
    """Forward and backward through ours and theirs, with new data into
    each pair of arrays (two by default) twice; the same bytes each time."""
    ours, theirs = dmf.Transfer(*args(pa, pb, dtype)), original(*args(pa, pb, dtype))
    pairs = arrays or [(np.empty(pa.subshape, dtype), np.empty(pb.subshape, dtype))]
    for a, b in pairs + pairs:
        a[...] = random(pa.subshape, dtype, rng)
        want = np.empty_like(b)
        theirs.forward(a, want)
        ours.forward(a, b)
        assert same_bytes(b, want)
        b[...] = random(pb.subshape, dtype, rng)
        back, want = np.empty_like(a), np.empty_like(a)
        theirs.backward(b, want)
        ours.backward(b, back)
        assert same_bytes(back, want)
    ours.destroy()
    theirs.destroy()


@pytest.mark.parametrize("dtype", DTYPES)
def test_same_bytes_as_mpi4py_fft(MPI, original, dtype):
    rng = np.random.default_rng(7 + MPI.COMM_WORLD.Get_rank())
    with Pencils(MPI, (9, 7, 10)) as pairs:
        for pa, pb in pairs:
            compare(pa, pb, dtype, original, rng)


def test_more_arrays_than_the_cache_holds(MPI, original):
    rng = np.random.default_rng(11 + MPI.COMM_WORLD.Get_rank())
    with Pencils(MPI, (9, 7, 10)) as pairs:
        pa, pb = pairs[0]
        arrays = [(np.empty(pa.subshape), np.empty(pb.subshape))
                  for _ in range(dmf.CACHE_SLOTS + 2)]
        compare(pa, pb, np.float64, original, rng, arrays)


def test_fortran_ordered_arrays_as_mpi4py_fft(MPI, original):
    rng = np.random.default_rng(3)
    with Pencils(MPI, (6, 8, 5)) as pairs:
        for pa, pb in pairs:
            a = np.asfortranarray(random(pa.subshape, np.float64, rng))
            b, want = np.zeros(pb.subshape, order="F"), np.zeros(pb.subshape, order="F")
            ours = dmf.Transfer(*args(pa, pb, np.float64))
            original(*args(pa, pb, np.float64)).forward(a, want)
            ours.forward(a, b)
            assert same_bytes(b, want)
            ours.destroy()


def test_checks_raise_on_every_process(MPI, original):
    rank = MPI.COMM_WORLD.Get_rank()
    with Pencils(MPI, (8, 6, 4)) as pairs:
        pa, pb = pairs[0]
        t = dmf.Transfer(*args(pa, pb, np.float64))
        a, b = np.zeros(pa.subshape), np.zeros(pb.subshape)
        wrong = np.zeros(tuple(n + 1 for n in pa.subshape)) if rank == 0 else a
        with pytest.raises(AssertionError):
            t.forward(wrong, b)
        with pytest.raises(AssertionError):
            t.forward(a.astype(np.float32), b)
        strided = np.zeros(pa.subshape[:-1] + (2 * pa.subshape[-1],))[..., ::2]
        with pytest.raises(BufferError, match="not contiguous"):
            t.forward(strided, b)
        frozen = b.copy()
        frozen.flags.writeable = False
        with pytest.raises(BufferError, match="readonly"):
            t.forward(a, frozen)
        t.forward(a, b)  # still usable: nothing was half done
        t.destroy()
        t.destroy()
        with pytest.raises(dri.Error) as e:
            t.forward(a, b)
        assert e.value.code == dri.ERR_STATE and "destroy" in str(e.value)


def test_constructor_checks(MPI, original):
    with Pencils(MPI, (8, 6, 4)) as pairs:
        comm, shape, _, sa, xa, sb, xb = args(*pairs[0], np.float64)
        with pytest.raises(KeyError):
            dmf.Transfer(comm, shape, np.float16, sa, xa, sb, xb)
        with pytest.raises(KeyError):
            original(comm, shape, np.float16, sa, xa, sb, xb)
        with pytest.raises(TypeError):
            dmf.Transfer(comm, shape, "not a dtype", sa, xa, sb, xb)
        bad = tuple(n + 1 for n in sa)
        with pytest.raises(ValueError, match="block"):
            dmf.Transfer(comm, shape, np.float64, bad, xa, sb, xb)


def test_install_and_uninstall(MPI, original):
    import mpi4py_fft.pencil as pencil
    from mpi4py_fft import PFFT
    dmf.install(shared_arrays=False)
    dmf.install(shared_arrays=False)  # idempotent
    assert pencil.Transfer is dmf.Transfer and dmf.installed()
    before = dmf.stats()
    fft = PFFT(MPI.COMM_WORLD, (12, 10, 8), dtype=np.complex128)
    assert all(isinstance(t, dmf.Transfer) for t in fft.transfer)
    u = np.random.default_rng(1).random(fft.forward.input_array.shape) + 0j
    u_hat = fft.forward(u).copy()
    back = fft.backward(u_hat).copy()
    assert np.allclose(back, u, rtol=0, atol=1e-12)
    after = dmf.stats()
    assert after["forward"] > before["forward"] and after["backward"] > before["backward"]
    fft.destroy()  # frees its subcommunicators before its transfers
    dmf.uninstall()
    dmf.uninstall()
    assert pencil.Transfer is original and not dmf.installed()
    ref = PFFT(MPI.COMM_WORLD, (12, 10, 8), dtype=np.complex128)
    assert not any(isinstance(t, dmf.Transfer) for t in ref.transfer)
    assert np.allclose(ref.forward(u), u_hat, rtol=0, atol=1e-12)
    ref.destroy()


def test_shared_arrays_take_the_single_copy(MPI, original):
    if MPI.COMM_WORLD.Get_size() == 1:
        pytest.skip("the single copy is between processes")
    with Pencils(MPI, (16, 12, 10)) as pairs:
        pa, pb = pairs[0]
        t = dmf.Transfer(*args(pa, pb, np.complex128))
        with dri.shared_arrays(min_bytes=0):
            a = np.empty(pa.subshape, np.complex128)
            b = np.empty(pb.subshape, np.complex128)
        a[...] = random(pa.subshape, np.complex128, np.random.default_rng(5))
        want = np.empty_like(b)
        original(*args(pa, pb, np.complex128)).forward(a, want)
        t.forward(a, b)
        assert same_bytes(b, want)
        assert t._plan.cache[0][-1][1].chosen_strategy == dri.Strategy.SHARED
        t.destroy()
