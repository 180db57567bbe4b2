"""Parallel 3-D FFT over pencils, as mpi4py-fft computes it: the processes
form a P0 x P1 grid, each holds a pencil (one axis whole, the other two
split over the grid), computes numpy.fft along its whole axis, and dri
moves the data to the next orientation:

    z-pencils "block/P0,block/P1,whole"   fft along axis 2
      -> y-pencils "block/P0,whole,block/P1"   fft along axis 1
      -> x-pencils "whole,block/P0,block/P1"   fft along axis 0

Process i has grid coordinates (i // P1, i % P1) in all three (dri's
row-major grid order), so each transfer moves data only within a row (the
first) or a column (the second) of the grid, like mpi4py-fft's transfers
over its sub-communicators; dri.pencil_distribution gives the same blocks
for an mpi4py-fft Pencil (docs/python.md). The arrays are dri.empty's
(node shared memory: AUTO picks the single copy on one node). The result
is gathered on rank 0 by a third dri transfer and checked against
numpy.fft.fftn of the gathered input; then frames are timed.

    mpiexec.mpich -n 4 python3 examples/python/pencil_fft.py --n 64
"""

import argparse
import sys
import time

import numpy as np

import dri


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, nargs="+", default=[64],
                   help="extents of the cube (one) or of the 3 axes")
    p.add_argument("--grid", type=int, nargs=2, default=None,
                   metavar=("P0", "P1"),
                   help="process grid (default: P0 x P1 = ranks, P0 >= P1 "
                        "as close as possible, as MPI_Dims_create)")
    p.add_argument("--frames", type=int, default=8, help="timed transforms")
    p.add_argument("--strategy", default="AUTO",
                   choices=list(dri.Strategy.__members__))
    return p.parse_args()


def dims_create(size):
    p1 = max(d for d in range(1, int(size ** 0.5) + 1) if size % d == 0)
    return size // p1, p1


def slices(block):
    return tuple(slice(f, l + 1) for f, l in zip(block.owned_first, block.owned_last))


class PencilFFT:
    """The three pencil distributions, their arrays and the two transfers
    between them."""

    def __init__(self, comm, shape, grid, strategy):
        p0, p1 = grid
        data = dri.GlobalData(shape, np.complex128)
        self.layout = dri.Layout.packed(3)
        parts = ["block/%d,block/%d,whole" % (p0, p1),   # aligned in axis 2
                 "block/%d,whole,block/%d" % (p0, p1),   # axis 1
                 "whole,block/%d,block/%d" % (p0, p1)]   # axis 0
        self.dists = [dri.Distribution(data, p, comm) for p in parts]
        self.blocks = [d.block(self.layout) for d in self.dists]
        self.arrays = [dri.empty(tuple(b.shape), np.complex128) for b in self.blocks]
        self.turns = []
        for k in range(2):
            t = dri.Transfer("pencil %d" % k)
            t.send(self.dists[k], self.layout, [self.arrays[k]])
            t.recv(self.dists[k + 1], self.layout, [self.arrays[k + 1]])
            t.strategy(dri.Strategy.__members__[strategy])
            t.commit()
            self.turns.append(t)
        # The check: the input and the result gathered on rank 0.
        self.gathers, self.gathered = [], []
        for k in (0, 2):
            t = dri.Transfer("gather %d" % k)
            t.send(self.dists[k], self.layout, [self.arrays[k]])
            if comm.rank == 0:
                whole = dri.Distribution(data, "whole,whole,whole", [0])
                self.gathered.append(dri.empty(tuple(shape), np.complex128))
                t.recv(whole, self.layout, [self.gathered[-1]])
            t.commit()
            self.gathers.append(t)

    def forward(self, x):
        """The 3-D FFT of x (this process's z-pencil); the result is left in
        self.arrays[2] (its x-pencil). Returns the seconds spent in the
        transfers."""
        a = self.arrays
        a[0][...] = np.fft.fft(x, axis=2)
        t0 = time.perf_counter()
        self.turns[0].execute()
        moved = time.perf_counter() - t0
        a[1][...] = np.fft.fft(a[1], axis=1)
        t0 = time.perf_counter()
        self.turns[1].execute()
        moved += time.perf_counter() - t0
        a[2][...] = np.fft.fft(a[2], axis=0)
        return moved

    def check(self, x):
        """Relative error of forward(x) against numpy.fft.fftn of the
        gathered input (on rank 0; 0 elsewhere)."""
        self.arrays[0][...] = x
        self.gathers[0].execute()
        self.forward(x)
        self.gathers[1].execute()
        if not self.gathered:
            return 0.0
        reference = np.fft.fftn(self.gathered[0])
        return float(np.abs(self.gathered[1] - reference).max()
                     / np.abs(reference).max())

    def close(self):
        for t in self.turns + self.gathers:
            t.close()


def main():
    o = parse()
    shape = tuple(o.n * 3 if len(o.n) == 1 else o.n)
    if len(shape) != 3:
        sys.exit("--n: one extent or three")
    with dri.Session():
        comm = dri.COMM_WORLD
        grid = tuple(o.grid) if o.grid else dims_create(comm.size)
        if grid[0] * grid[1] != comm.size:
            sys.exit("--grid %d %d is not %d processes" % (grid + (comm.size,)))
        fft = PencilFFT(comm, shape, grid, o.strategy)
        rng = np.random.default_rng(7 + comm.rank)
        b = fft.blocks[0]
        x = rng.standard_normal(tuple(b.shape)) + 1j * rng.standard_normal(tuple(b.shape))
        err = comm.allreduce(fft.check(x), "max")
        ok = err < 1e-12
        strategies = [t.chosen_strategy.name for t in fft.turns]
        total = moved = 0.0
        for _ in range(o.frames):
            comm.barrier()
            t0 = time.perf_counter()
            m = fft.forward(x)
            total += comm.allreduce(time.perf_counter() - t0, "max")
            moved += comm.allreduce(m, "max")
        fft.close()
        if comm.rank == 0:
            print("pencil 3-D FFT %s complex128, %d ranks on a %d x %d grid, %s: "
                  "%s (max relative error %.1e against numpy.fft.fftn)"
                  % ("x".join(map(str, shape)), comm.size, grid[0], grid[1],
                     "/".join(strategies), "verified" if ok else "WRONG", err))
            print("%.2f ms per transform, of which %.2f ms in the two transfers "
                  "(mean of %d)" % (total / o.frames * 1e3,
                                    moved / o.frames * 1e3, o.frames))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
