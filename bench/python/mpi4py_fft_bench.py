"""dri against mpi4py-fft on mpi4py-fft's own reshapes: the transfers
between the pencils (or slabs) of a 3-D array that mpi4py-fft's parallel FFT
does between its 1-D FFTs.

For each case, the pencils are mpi4py-fft's (Pencil over a Subcomm of
MPI.COMM_WORLD), and each reshape (pencil A -> pencil B, and back) is timed
with:

  dri          a dri.Transfer between dri.pencil_distribution(A) and (B),
               arrays from Distribution.empty (node shared memory: the
               default), AUTO strategy, execute()
  mpi4py-fft   A.transfer(B, dtype).forward(a, b) on NumPy arrays (its
               MPI_Alltoallw with subarray types over the sub-communicator)
  alltoallw    the same MPI_Alltoallw called directly through mpi4py
               (mpi4py-fft without its Python checks)

Every method's result is checked element by element against the receiving
pencil's block of the global array (and dri's against mpi4py-fft's), after
the first run and after the timed ones. The methods are interleaved (each
repetition runs each method once, in a rotating order); a time is the
slowest rank's, and the medians over the repetitions are printed.

Needs mpi4py-fft (python3-mpi4py-fft) and mpi4py on the MPI library dri is
built on (Debian's are Open MPI's: build dri with tools/build.sh
build-openmpi ..., see docs/python.md); otherwise prints "skipped: <why>"
and exits 0.

    PYTHONPATH=build-openmpi/python mpiexec.openmpi -n 2 /usr/bin/python3 \\
        bench/python/mpi4py_fft_bench.py --case slab:256:float64
"""

import argparse
import importlib.util
import statistics
import sys
import time

import numpy as np

import dri

METHODS = ("dri", "mpi4py-fft", "alltoallw")


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--case", action="append", metavar="KIND:N:DTYPE",
                   help="slab (split over 1 grid dimension) or pencil (2, "
                        "MPI_Dims_create's grid), cube extent N, a NumPy "
                        "dtype; repeatable. Default: slab:256:float64 "
                        "slab:256:complex128 slab:128:float64")
    p.add_argument("--reps", type=int, default=30, help="timed repetitions")
    p.add_argument("--warmup", type=int, default=3)
    return p.parse_args()


def skip_reason():
    """Why the benchmark cannot run here (checked without importing
    mpi4py.MPI, which would load its MPI library), or None."""
    if importlib.util.find_spec("mpi4py_fft") is None:
        return "mpi4py-fft is not installed (Debian: python3-mpi4py-fft)"
    compatible = dri.mpi4py_compatible()
    if compatible is None:
        return "mpi4py is not installed (Debian: python3-mpi4py)"
    if compatible is False:
        return ("mpi4py runs on another MPI library than dri (%s); build dri "
                "on mpi4py's: %s" % (dri.mpi_library_version().split("\n")[0],
                                     dri._interop.OPENMPI_BUILD))
    return None


def block_values(shape, start, subshape, dtype):
    """The block [start, start + subshape) of the global array whose element
    (i, j, k) is its row-major index + 1 (minus that, times 1j, as the
    imaginary part): every element distinct and exact."""
    idx = [np.arange(s, s + n, dtype=np.int64) for s, n in zip(start, subshape)]
    linear = (idx[0][:, None, None] * shape[1] + idx[1][None, :, None]) * shape[2] \
        + idx[2][None, None, :] + 1
    if np.issubdtype(dtype, np.complexfloating):
        return (linear - 1j * linear).astype(dtype)
    return linear.astype(dtype)


def subarray_types(MPI, comm, shape, axis, subshape, dtype):
    """mpi4py-fft's subarray types (pencil._subarraytypes), one per process
    of comm: this block's part that goes to (comes from) each."""
    base = MPI._typedict[np.dtype(dtype).char]
    n, p = shape[axis], comm.Get_size()
    types = []
    for r in range(p):
        sizes, starts = list(subshape), [0] * len(subshape)
        part = np.array_split(np.arange(n), p)[r]
        sizes[axis], starts[axis] = part.size, int(part[0]) if part.size else 0
        types.append(base.Create_subarray(list(subshape), sizes, starts).Commit())
    return types


class Reshape:
    """One reshape, pencil a -> pencil b, by the three methods."""

    def __init__(self, MPI, name, a, b, dtype):
        self.name, self.a, self.b, self.dtype = name, a, b, dtype
        self.layout = dri.Layout.packed(3)
        world = MPI.COMM_WORLD
        # dri, default arrays (node shared memory), AUTO.
        da = dri.pencil_distribution(dtype, a, world)
        db = dri.pencil_distribution(dtype, b, world)
        self.dri_src, self.dri_dst = da.empty(self.layout), db.zeros(self.layout)
        self.t = dri.Transfer(name)
        self.t.send(da, self.layout, [self.dri_src])
        self.t.recv(db, self.layout, [self.dri_dst])
        self.t.commit()
        # mpi4py-fft on NumPy arrays.
        self.fft = a.transfer(b, dtype)
        self.fft_src = np.empty(a.subshape, dtype)
        self.fft_dst = np.zeros(b.subshape, dtype)
        # The same Alltoallw by hand.
        comm = self.fft.comm
        shape = list(a.subshape)
        shape[b.axis] = a.shape[b.axis]
        ta = subarray_types(MPI, comm, shape, a.axis, a.subshape, dtype)
        tb = subarray_types(MPI, comm, shape, b.axis, b.subshape, dtype)
        self.types = ta + tb
        one = ([1] * comm.Get_size(), [0] * comm.Get_size())
        self.w_src = np.empty(a.subshape, dtype)
        self.w_dst = np.zeros(b.subshape, dtype)
        self.w_comm = comm
        self.w_args = ([self.w_src, one, ta], [self.w_dst, one, tb])
        src = block_values(a.shape, a.substart, a.subshape, dtype)
        for x in (self.dri_src, self.fft_src, self.w_src):
            x[...] = src
        self.want = block_values(b.shape, b.substart, b.subshape, dtype)
        self.bytes = self.want.nbytes

    def run(self, method):
        if method == "dri":
            self.t.execute()
        elif method == "mpi4py-fft":
            self.fft.forward(self.fft_src, self.fft_dst)
        else:
            self.w_comm.Alltoallw(*self.w_args)

    def exact(self):
        """Every method's result equals the receiving block, and dri's
        equals mpi4py-fft's, element by element."""
        return (np.array_equal(self.dri_dst, self.want)
                and np.array_equal(self.fft_dst, self.want)
                and np.array_equal(self.w_dst, self.want)
                and np.array_equal(self.dri_dst, self.fft_dst))

    def close(self):
        self.t.close()
        self.fft.destroy()
        for t in self.types:
            t.Free()


def pencils(MPI, kind, n):
    """mpi4py-fft's pencils of an n^3 array: slab, split along axis 0 then
    1; pencil, aligned in axis 2, then 1, then 0 (as its PFFT goes)."""
    from mpi4py_fft.pencil import Pencil, Subcomm
    shape = (n, n, n)
    if kind == "slab":
        sub = Subcomm(MPI.COMM_WORLD, [0, 1, 1])
        p0 = Pencil(sub, shape, axis=1)
        return sub, [p0, p0.pencil(0)]
    sub = Subcomm(MPI.COMM_WORLD, [0, 0, 1])
    p0 = Pencil(sub, shape, axis=2)
    p1 = p0.pencil(1)
    return sub, [p0, p1, p1.pencil(0)]


def describe(p):
    return "(%s)" % ",".join(
        "*" if c.Get_size() == 1 else "/%d" % c.Get_size() for c in p.subcomm)


def main():
    o = parse()
    with dri.Session():
        rank = dri.COMM_WORLD.rank
        why = skip_reason()
        if why:
            if rank == 0:
                print("skipped: " + why)
            return 0
        from mpi4py import MPI
        world = MPI.COMM_WORLD
        cases = o.case or ["slab:256:float64", "slab:256:complex128",
                           "slab:128:float64"]
        ok = True
        rows = []
        for case in cases:
            kind, n, dtype = case.split(":")
            if kind not in ("slab", "pencil"):
                sys.exit("--case: slab or pencil, not %r" % kind)
            dtype = np.dtype(dtype)
            sub, pens = pencils(MPI, kind, int(n))
            reshapes = []
            for k in range(len(pens) - 1):
                a, b = pens[k], pens[k + 1]
                reshapes.append(Reshape(MPI, "%s%s->%s" % (kind, describe(a), describe(b)), a, b, dtype))
                reshapes.append(Reshape(MPI, "%s%s->%s" % (kind, describe(b), describe(a)), b, a, dtype))
            for r in reshapes:
                times = {m: [] for m in METHODS}
                for m in METHODS:
                    r.run(m)
                first = r.exact()
                for rep in range(o.warmup + o.reps):
                    for j in range(len(METHODS)):
                        m = METHODS[(rep + j) % len(METHODS)]
                        world.Barrier()
                        t0 = time.perf_counter()
                        r.run(m)
                        dt = world.allreduce(time.perf_counter() - t0, op=MPI.MAX)
                        if rep >= o.warmup:
                            times[m].append(dt)
                exact = world.allreduce(int(first and r.exact()), op=MPI.MIN) == 1
                ok = ok and exact
                med = {m: statistics.median(times[m]) * 1e3 for m in METHODS}
                rows.append((n, dtype.name, r.name, r.bytes, r.t.chosen_strategy.name,
                             med, exact))
                r.close()
            sub.destroy()
        if rank == 0:
            print("dri %s on %s; mpi4py-fft; %d ranks; medians of %d "
                  "repetitions (after %d warm-up), the slowest rank's, ms"
                  % (dri.__version__, dri.mpi_library_version().split("\n")[0],
                     world.Get_size(), o.reps, o.warmup))
            print("| n^3 | dtype | reshape | MB/rank | dri (strategy) | mpi4py-fft "
                  "| alltoallw | dri / mpi4py-fft | exact |")
            print("|---|---|---|---|---|---|---|---|---|")
            for n, dt, name, nbytes, strategy, med, exact in rows:
                print("| %s | %s | %s | %.1f | %.3f (%s) | %.3f | %.3f | %.2f | %s |"
                      % (n, dt, name, nbytes / 1e6, med["dri"], strategy,
                         med["mpi4py-fft"], med["alltoallw"],
                         med["dri"] / med["mpi4py-fft"], "yes" if exact else "WRONG"))
            print("every reshape exact by every method: verified" if ok
                  else "WRONG: a method delivered other data")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
