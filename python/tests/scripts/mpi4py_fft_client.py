"""Runs one of mpi4py-fft's own test files, unchanged, with dri installed
under mpi4py-fft, then checks that dri carried the data:

    mpiexec -n 2 python3 mpi4py_fft_client.py [--min-bytes N | --no-shared-arrays] FILE

FILE must match the SHA256SUMS beside it (byte for byte as shipped). After
the file's own __main__ has run (its asserts are the test), every process
checks that mpi4py-fft's Pencil.transfer still gave dri's Transfer, that
dri ran forward and backward calls, that mpi4py-fft's own Transfer ran none,
and, given --min-bytes, that arrays were made in node shared memory and some
transfer took the single copy. Prints "verified" on rank 0, or "skipped:
<why>" where mpi4py is not on dri's MPI library."""

import argparse
import hashlib
import os
import runpy
import sys
import types

import numpy as np

import dri


def check_unchanged(path):
    sums = os.path.join(os.path.dirname(path), "SHA256SUMS")
    with open(sums) as f:
        want = dict(reversed(line.split()) for line in f if line.strip())
    with open(path, "rb") as f:
        got = hashlib.sha256(f.read()).hexdigest()
    if want.get(os.path.basename(path)) != got:
        sys.exit("WRONG: %s differs from the file mpi4py-fft shipped (SHA256SUMS)" % path)


def numpy_124_shim():
    """mpi4py-fft 2.0.4's PFFT calls np.ndim() on a ragged tuple of axes,
    e.g. ((0,), (1, 2)), which NumPy 1.24 refuses (ValueError) with or
    without dri: test_mpifft.py then fails at its first PFFT. Only when
    this NumPy refuses it, mpi4py_fft.mpifft alone gets an np whose ndim()
    takes a tuple or list as 1-D (what PFFT asks: is it a sequence)."""
    try:
        np.ndim(((0,), (1, 2)))
        return False
    except ValueError:
        pass
    import mpi4py_fft.mpifft as mpifft
    proxy = types.ModuleType("numpy")
    proxy.__dict__.update(np.__dict__)
    proxy.ndim = lambda a: 1 if isinstance(a, (tuple, list)) else np.ndim(a)
    mpifft.np = proxy
    return True


def count_calls_of(cls, counter):
    """Counts calls of cls.forward and cls.backward (mpi4py-fft's own
    Transfer: a fallback to it must not pass)."""
    for name in ("forward", "backward"):
        method = getattr(cls, name)

        def counted(self, *a, _method=method, **kw):
            counter[0] += 1
            return _method(self, *a, **kw)
        setattr(cls, name, counted)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--min-bytes", type=int, default=None)
    ap.add_argument("--no-shared-arrays", action="store_true")
    opt = ap.parse_args()
    if not dri.mpi4py_compatible():
        print("skipped: mpi4py is not installed or runs on another MPI library than dri")
        return
    path = os.path.abspath(opt.file)
    check_unchanged(path)
    from mpi4py import MPI
    import mpi4py_fft.pencil as pencil
    import dri.mpi4py_fft as dmf
    theirs = [0]
    count_calls_of(pencil.Transfer, theirs)
    dmf.install(shared_arrays=not opt.no_shared_arrays, min_bytes=opt.min_bytes)
    shimmed = numpy_124_shim()
    before = dri.shared_arrays_stats()["allocated"]

    sys.argv = [path]
    sys.path.insert(0, os.path.dirname(path))
    runpy.run_path(path, run_name="__main__")

    s = dmf.stats()
    problems = []
    if pencil.Transfer is not dmf.Transfer:
        problems.append("mpi4py_fft.pencil.Transfer is no longer dri's")
    if s["forward"] + s["backward"] == 0 or s["commits"] == 0:
        problems.append("dri ran no transfer: %s" % s)
    if theirs[0]:
        problems.append("mpi4py-fft's own Transfer ran %d calls" % theirs[0])
    shared = dri.shared_arrays_stats()["allocated"] - before
    if opt.min_bytes is not None and MPI.COMM_WORLD.Get_size() > 1:
        if shared == 0:
            problems.append("no array was made in node shared memory")
        if not s["strategies"].get("SHARED"):
            problems.append("no transfer took the single copy: %s" % s["strategies"])
    for p in problems:
        print("WRONG (rank %d): %s" % (MPI.COMM_WORLD.Get_rank(), p), flush=True)
    ok = MPI.COMM_WORLD.allreduce(not problems, op=MPI.LAND)
    if ok and MPI.COMM_WORLD.Get_rank() == 0:
        print("%s on dri verified: %d forward and %d backward calls over %d commits "
              "(%s), %d arrays in node shared memory, mpi4py-fft's own Transfer ran "
              "none%s" % (os.path.basename(path), s["forward"], s["backward"],
                          s["commits"], s["strategies"], shared,
                          "; NumPy 1.24 shim applied to mpi4py_fft.mpifft" if shimmed else ""))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
