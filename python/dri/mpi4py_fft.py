"""dri under mpi4py-fft: mpi4py-fft's global redistribution planned once and
run by dri, with no change to the code that uses mpi4py-fft.

    from mpi4py import MPI
    import dri.mpi4py_fft
    dri.mpi4py_fft.install()     # the one line: PFFT, DistArray ... run on dri

`Transfer` has the constructor and methods of mpi4py_fft.pencil.Transfer,
whose forward() and backward() call MPI_Alltoallw with subarray types at
every call. Here the first call with a pair of arrays declares and commits a
dri transfer between them (collective over the transfer's communicator, as
the Alltoallw is); later calls with the same arrays run it. Arrays in node
shared memory (dri.shared_arrays, which install() turns on) take dri's
single copy. docs/python.md, "Using dri under mpi4py-fft"."""

import sys

import numpy as np

from . import _dri, _interop
from ._errors import Error

# Committed dri transfers kept per direction and Transfer: PFFT passes the
# same two work arrays at every call, DistArray a new Transfer per use.
# Each keeps its arrays alive until it is evicted or destroy() is called.
CACHE_SLOTS = 4

_counts = {"transfers": 0, "commits": 0, "forward": 0, "backward": 0, "strategies": {}}


def stats():
    """What dri has carried for mpi4py-fft in this process: `transfers`
    (Transfer objects made), `commits` (dri transfers committed: one per
    new pair of arrays), `forward` and `backward` (calls run by dri), and
    `strategies`: how many commits chose each dri.Strategy, by name."""
    out = dict(_counts)
    out["strategies"] = dict(_counts["strategies"])
    return out


def _mpi():
    from mpi4py import MPI
    return MPI


def _blockdist(n, size, rank):
    # mpi4py-fft's split, which is dri's "block": the first n mod size
    # processes get one more.
    q, r = divmod(n, size)
    return q + (1 if r > rank else 0)


def _element_type(dtype):
    """dtype itself when dri has an element type for it, else a record of
    its size: dri only copies the bytes, so both move them alike."""
    try:
        _dri.GlobalData([1], dtype)
        return dtype
    except Error:
        return np.dtype("V%d" % dtype.itemsize)


class Transfer:
    """mpi4py_fft.pencil.Transfer on dri: redistributes an array of
    `shape` over `comm` from pencils aligned along `axisA` (local shape
    `subshapeA`) to pencils aligned along `axisB`, and back.

    The arguments and the checks of forward() and backward() are
    mpi4py-fft's, and the results are the same, bit for bit. Beyond them, the
    subshapes must be this process's blocks of `shape` (mpi4py-fft's
    Pencil.transfer always passes those; ValueError otherwise), and a
    failed check raises on every process of `comm` instead of leaving the
    others in the collective call."""

    def __init__(self, comm, shape, dtype, subshapeA, axisA, subshapeB, axisB):
        self.comm = comm
        self.shape = tuple(shape)
        self.dtype = dtype = np.dtype(dtype)
        self.subshapeA, self.axisA = tuple(subshapeA), axisA
        self.subshapeB, self.axisB = tuple(subshapeB), axisB
        _mpi()._typedict[dtype.char]  # mpi4py-fft's KeyError for a dtype MPI lacks
        self._check_blocks(comm.Get_size(), comm.Get_rank())
        self._plan = None       # built by the first call: it is collective
        self._destroyed = False
        _counts["transfers"] += 1

    def _check_blocks(self, size, rank):
        for name, sub, axis, split in (("A", self.subshapeA, self.axisA, self.axisB),
                                       ("B", self.subshapeB, self.axisB, self.axisA)):
            want = list(self.shape)
            want[split] = _blockdist(self.shape[split], size, rank)
            if list(sub) != want or axis == split:
                raise ValueError(
                    "dri.mpi4py_fft.Transfer: subshape%s %s is not process %d's "
                    "block of shape %s aligned along axis %d (expected %s)"
                    % (name, sub, rank, self.shape, axis, tuple(want)))

    def forward(self, arrayA, arrayB):
        """Global redistribution from arrayA (shape subshapeA) to arrayB
        (shape subshapeB)."""
        self._run(0, arrayA, arrayB)
        _counts["forward"] += 1

    def backward(self, arrayB, arrayA):
        """Global redistribution from arrayB (shape subshapeB) to arrayA
        (shape subshapeA)."""
        self._run(1, arrayB, arrayA)
        _counts["backward"] += 1

    def destroy(self):
        """Releases the dri transfers and the communicator; using the
        Transfer afterwards raises dri.Error (ERR_STATE). Local, as
        mpi4py-fft's."""
        if self._plan is not None:
            self._plan.close()
            self._plan = None
        self._destroyed = True

    def _run(self, direction, src, dst):
        if self._destroyed:
            raise Error(_dri.ERR_STATE, "dri.mpi4py_fft.Transfer: used after destroy()")
        if self._plan is None:
            self._plan = _Plan(self)
        self._plan.run(direction, src, dst)


def _memory_order(a):
    """a as a C-ordered array over its memory, as MPI reads a buffer: a
    C-contiguous array itself, a Fortran-contiguous one reinterpreted (as
    mpi4py-fft's Alltoallw does); BufferError otherwise, as mpi4py's."""
    if a.flags.c_contiguous:
        return a
    if not a.flags.f_contiguous:
        raise BufferError("dlpack: buffer is not contiguous")
    return a.ravel(order="K").reshape(a.shape)


class _Plan:
    """The dri side of one Transfer: a duplicate of its communicator (the
    caller may free its own first, as PFFT.destroy() does), the two
    distributions, and per direction the committed transfers by arrays."""

    def __init__(self, owner):
        if not _dri.initialized():
            from . import init
            init()
        self.owner = owner
        self.comm = owner.comm.Dup()
        self.type = _element_type(owner.dtype)
        data = _dri.GlobalData(list(owner.shape), self.type)
        group = _dri.Group(self.comm)
        self.layout = _dri.Layout.packed(len(owner.shape))
        dists = [_dri.Distribution(data, self._partition(split), group)
                 for split in (owner.axisB, owner.axisA)]  # A, B
        self.ends = ((dists[0], dists[1]), (dists[1], dists[0]))  # per direction
        self.cache = ([], [])   # per direction: [key, dri.Transfer], most recent last
        self.vote = np.zeros(2, np.int64)

    def _partition(self, split):
        return ",".join("block" if k == split else "whole"
                        for k in range(len(self.owner.shape)))

    def _check(self, direction, src, dst):
        """mpi4py-fft's checks, then mpi4py's on the buffers: the error, or
        None."""
        o = self.owner
        a, b = (src, dst) if direction == 0 else (dst, src)
        try:
            assert o.subshapeA == a.shape
            assert o.subshapeB == b.shape
            assert o.dtype == a.dtype
            assert o.dtype == b.dtype
        except (AssertionError, AttributeError) as e:  # AttributeError: not an array
            return e
        try:
            _memory_order(src)
            _memory_order(dst)
        except BufferError as e:
            return e
        if not dst.flags.writeable:
            return BufferError("Cannot export readonly array since signalling "
                               "readonly is unsupported by DLPack.")
        return None

    def run(self, direction, src, dst):
        error = self._check(direction, src, dst)
        cache = self.cache[direction]
        key = None if error else (src.ctypes.data, dst.ctypes.data,
                                  src.strides, dst.strides)
        mask = 0
        for k, entry in enumerate(cache):
            if entry[0] == key:
                mask |= 1 << k
        # One allreduce agrees on a failed check and on a cached transfer
        # every process holds for its arrays; no other collective on a hit.
        self.vote[0], self.vote[1] = mask, (0 if error else -1)
        self.comm.Allreduce(_mpi().IN_PLACE, self.vote, op=_mpi().BAND)
        if self.vote[1] == 0:
            raise error or AssertionError(
                "dri.mpi4py_fft.Transfer: another process's arrays failed "
                "mpi4py-fft's checks")
        common = int(self.vote[0])
        if common:
            slot = (common & -common).bit_length() - 1
            entry = cache.pop(slot)
        else:
            entry = [key, self._commit(direction, src, dst)]
            if len(cache) == CACHE_SLOTS:
                cache.pop(0)[1].close()
        cache.append(entry)
        entry[1].execute()

    def _commit(self, direction, src, dst):
        s, r = self.ends[direction]
        t = _dri.Transfer("mpi4py_fft.Transfer")
        t.send(s, self.layout, [_memory_order(src).view(self.type)])
        t.recv(r, self.layout, [_memory_order(dst).view(self.type)])
        t.commit()
        _counts["commits"] += 1
        chosen = _counts["strategies"]
        chosen[t.chosen_strategy.name] = chosen.get(t.chosen_strategy.name, 0) + 1
        return t

    def close(self):
        for cache in self.cache:
            for _, t in cache:
                t.close()
            cache.clear()
        self.ends = None
        self.comm.Free()


# --- install() / uninstall() --------------------------------------------------

_saved = {}


def installed():
    """True while install() is in effect."""
    return "Transfer" in _saved


def _refuse_other_mpi():
    if _interop.mpi4py_compatible() is False:
        ours = _interop._first_line(_dri.mpi_library_version())
        raise Error(_dri.ERR_MPI, (
            "dri.mpi4py_fft.install: mpi4py is built on %s, dri on %s (\"%s\"): "
            "mpi4py-fft's communicators cannot be used by dri. %s")
            % (", ".join(_interop.linked_mpi("mpi4py.MPI")),
               ", ".join(_interop.linked_mpi("dri._dri") or ["?"]), ours,
               _interop._remedy()))


def install(shared_arrays=True, min_bytes=None):
    """Makes mpi4py-fft's Pencil.transfer (so PFFT, DistArray.redistribute
    and everything built on them) use dri's Transfer, and, with
    `shared_arrays`, puts NumPy arrays of at least `min_bytes` (default
    dri.SHARED_ARRAYS_MIN_BYTES) in node shared memory
    (dri.set_shared_arrays) so that dri moves them with a single copy.
    Initializes MPI (through mpi4py) and dri when needed. Idempotent.
    Raises dri.Error (ERR_MPI), naming both libraries, when mpi4py is built
    on another MPI library than dri."""
    _refuse_other_mpi()
    _mpi()  # mpi4py initializes MPI first, at its thread level
    import mpi4py_fft.pencil as pencil
    from . import init
    init()
    if not installed():
        _saved["Transfer"] = pencil.Transfer
        pencil.Transfer = Transfer
    if shared_arrays:
        from . import set_shared_arrays, SHARED_ARRAYS_MIN_BYTES
        set_shared_arrays(True, SHARED_ARRAYS_MIN_BYTES if min_bytes is None else min_bytes)
        _saved["shared_arrays"] = True
    elif _saved.pop("shared_arrays", False):
        from . import set_shared_arrays
        set_shared_arrays(False)


def uninstall():
    """Restores mpi4py-fft's own Transfer (and NumPy's allocator, when
    install() turned dri.shared_arrays on). Transfers made while installed
    go on working; arrays made in shared memory stay valid. Idempotent."""
    if "shared_arrays" in _saved:
        from . import set_shared_arrays
        set_shared_arrays(False)
    if installed():
        sys.modules["mpi4py_fft.pencil"].Transfer = _saved["Transfer"]
    _saved.clear()


__all__ = ["CACHE_SLOTS", "Transfer", "install", "installed", "stats", "uninstall"]
