"""mpi4py-fft's whole parallel FFT (PFFT forward + backward) with and
without dri under it: what a user of mpi4py-fft gains from the one line
dri.mpi4py_fft.install().

Each case builds four PFFTs of the same problem, each under its own setting
(the setting matters when the PFFT is built: Pencil.transfer picks the
Transfer class and NumPy allocates the work arrays then):

  mpi4py-fft          mpi4py-fft alone (its MPI_Alltoallw with subarray types)
  +shared arrays      mpi4py-fft alone, arrays in node shared memory
                      (dri.shared_arrays): what the handler alone costs
  dri                 dri.mpi4py_fft.install(shared_arrays=False)
  dri+shared arrays   dri.mpi4py_fft.install(): the default

Every repetition runs forward(u) then backward() on each, in a rotating
order; a time is the slowest rank's. The "transfer" column is the time
inside the PFFT's redistributions (timed around each call), and its share of
the whole. Results are checked: each PFFT's forward output equals
mpi4py-fft's alone (to rounding: the FFTW plans are each PFFT's own), and
backward(forward(u)) equals u. Also printed: the time of install() and of
each PFFT's construction and first forward + backward (dri commits its
transfers at the first call).

Needs mpi4py-fft and mpi4py on dri's MPI library (Open MPI's on Debian:
tools/build.sh build-openmpi ..., docs/python.md), otherwise prints
"skipped: <why>".

    PYTHONPATH=build-openmpi/python mpiexec.openmpi -n 2 /usr/bin/python3 \\
        bench/python/pfft_bench.py --case slab:128:complex128 --reps 10
"""

import argparse
import contextlib
import statistics
import time

import numpy as np

import dri
from mpi4py_fft_bench import skip_reason  # the same needs, beside this file

METHODS = ("mpi4py-fft", "+shared arrays", "dri", "dri+shared arrays")


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--case", action="append", metavar="KIND:N:DTYPE",
                   help="slab (grid=(-1,)) or pencil (mpi4py-fft's default "
                        "grid), cube extent N, complex128 (c2c) or float64 "
                        "(r2c); repeatable. Default: the 8 cases of 128 and "
                        "256, slab and pencil, c2c and r2c")
    p.add_argument("--reps", type=int, default=10, help="timed repetitions")
    p.add_argument("--warmup", type=int, default=1)
    return p.parse_args()


def timed_transfers(fft, spent):
    """Wraps the PFFT's redistribution calls to add their time to spent[0]."""
    def wrap(call):
        def timed(a, b):
            t = time.perf_counter()
            call(a, b)
            spent[0] += time.perf_counter() - t
        return timed
    for transform in (fft.forward, fft.backward):
        transform._transfer = tuple(wrap(c) for c in transform._transfer)


class Method:
    def __init__(self, name, MPI, kind, n, dtype):
        import dri.mpi4py_fft as dmf
        from mpi4py_fft import PFFT
        dmf.uninstall()
        if name.startswith("dri"):
            dmf.install(shared_arrays="shared" in name)
        MPI.COMM_WORLD.Barrier()
        t = time.perf_counter()
        alone_shared = name == "+shared arrays"
        with dri.shared_arrays() if alone_shared else contextlib.nullcontext():
            grid = (-1,) if kind == "slab" else None
            self.fft = PFFT(MPI.COMM_WORLD, (n, n, n), dtype=dtype, grid=grid)
        self.build = time.perf_counter() - t
        dmf.uninstall()
        self.name, self.spent, self.times, self.moved = name, [0.0], [], []
        timed_transfers(self.fft, self.spent)

    def run(self, u):
        self.spent[0] = 0.0
        t = time.perf_counter()
        out = self.fft.forward(u)
        back = self.fft.backward(out)
        return time.perf_counter() - t, out, back


def slowest(MPI, x):
    return MPI.COMM_WORLD.allreduce(x, op=MPI.MAX)


def run_case(MPI, case, reps, warmup):
    kind, n, dtype = case.split(":")
    n, dtype = int(n), np.dtype(dtype)
    rank = MPI.COMM_WORLD.Get_rank()
    import dri.mpi4py_fft as dmf
    t = time.perf_counter()
    dmf.install()
    install_time = slowest(MPI, time.perf_counter() - t)
    dmf.uninstall()
    methods = [Method(m, MPI, kind, n, dtype) for m in METHODS]
    u = np.random.default_rng(rank).random(methods[0].fft.forward.input_array.shape)
    u = u.astype(dtype) if dtype.kind == "f" else (u + 1j * u[::-1]).astype(dtype)
    first, reference = {}, None
    for m in methods:
        took, out, back = m.run(u)
        first[m.name] = slowest(MPI, took)
        reference = out.copy() if reference is None else reference
        scale = max(1.0, float(np.abs(reference).max()))
        ok = np.allclose(out, reference, rtol=0, atol=1e-9 * scale) and \
            np.allclose(back, u, rtol=0, atol=1e-9)
        if not MPI.COMM_WORLD.allreduce(ok, op=MPI.LAND):
            raise SystemExit("WRONG: %s %s differs from mpi4py-fft alone" % (case, m.name))
    for r in range(warmup + reps):
        for k in range(len(methods)):
            m = methods[(k + r) % len(methods)]
            MPI.COMM_WORLD.Barrier()
            took = m.run(u)[0]
            if r >= warmup:
                m.times.append(slowest(MPI, took))
                m.moved.append(slowest(MPI, m.spent[0]))
    if rank == 0:
        report(case, methods, first, install_time)
    for m in methods:
        m.fft.destroy()


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.99 * len(xs)))]


def report(case, methods, first, install_time):
    base = statistics.median(methods[0].times)
    print("\n%s, %d reps (forward + backward, ms; slowest rank)" % (case, len(methods[0].times)))
    print("  %-18s %9s %9s %8s %14s %8s %9s %11s" % (
        "method", "median", "p99", "vs alone", "transfer", "share", "build", "first call"))
    for m in methods:
        med, moved = statistics.median(m.times), statistics.median(m.moved)
        print("  %-18s %9.1f %9.1f %7.2fx %11.1f ms %7.0f%% %9.1f %11.1f" % (
            m.name, 1e3 * med, 1e3 * p99(m.times), base / med, 1e3 * moved,
            100 * moved / med, 1e3 * m.build, 1e3 * first[m.name]))
    print("  install(): %.2f ms; verified" % (1e3 * install_time))


def main():
    opt = parse()
    why = skip_reason()
    if why:
        print("skipped: " + why)
        return
    from mpi4py import MPI
    dri.init()
    cases = opt.case or ["%s:%d:%s" % (k, n, t) for n in (128, 256)
                         for k in ("slab", "pencil") for t in ("complex128", "float64")]
    if MPI.COMM_WORLD.Get_rank() == 0:
        print("pfft_bench: %d ranks, %s" % (MPI.COMM_WORLD.Get_size(),
                                            dri.mpi_library_version().split("\n")[0]))
    for case in cases:
        run_case(MPI, case, opt.reps, opt.warmup)


if __name__ == "__main__":
    main()
