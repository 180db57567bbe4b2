"""Corner turn from Python: an N x M complex-float matrix distributed by rows
(rows contiguous) is reorganized to a distribution by columns (columns
contiguous) for K frames over a ring of B NumPy arrays on each side.

    mpiexec.mpich -n 4 python3 examples/python/corner_turn.py --n 1024 --m 768

Every element of every frame is checked; then the same number of frames is
timed without the fill and check work, and frames/s and GB/s are printed.
"""

import argparse
import sys
import time

import numpy as np

import dri


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=1024, help="rows")
    p.add_argument("--m", type=int, default=768, help="columns")
    p.add_argument("--frames", type=int, default=16)
    p.add_argument("--buffers", type=int, default=2)
    p.add_argument("--strategy", default="AUTO",
                   choices=list(dri.Strategy.__members__))
    return p.parse_args()


def frame(rows, m, k):
    """Rows [first, last] of frame k: element (i, j) is i*m + j + 1 with
    imaginary part k, exact in complex64 for matrices below 2^24 elements."""
    first, last = rows
    i = np.arange(first, last + 1)[:, None]
    j = np.arange(m)[None, :]
    return (i * m + j + 1 + 1j * k).astype(np.complex64)


def expected_columns(n, m, cols, k):
    first, last = cols
    return frame((0, n - 1), m, k)[:, first:last + 1]


def main():
    o = parse()
    with dri.Session():
        comm = dri.COMM_WORLD
        matrix = dri.GlobalData((o.n, o.m), np.complex64)
        by_rows = dri.Distribution(matrix, "block,whole", comm)
        by_cols = dri.Distribution(matrix, "whole,block", comm)
        row_major = dri.Layout.packed(2)
        col_major = dri.Layout.ordered([1, 0])
        src = by_rows.empty(row_major, o.buffers)
        dst = by_cols.empty(col_major, o.buffers)
        rb, cb = by_rows.block(row_major), by_cols.block(col_major)
        rows = (rb.owned_first[0], rb.owned_last[0])
        cols = (cb.owned_first[1], cb.owned_last[1])

        with dri.Transfer("corner turn") as turn:
            turn.send(by_rows, row_major, src)
            turn.recv(by_cols, col_major, dst)
            turn.strategy(dri.Strategy.__members__[o.strategy])
            turn.commit()

            bad = 0
            for k in range(o.frames):
                src[k % o.buffers][...] = frame(rows, o.m, k)
                turn.execute()
                got = dst[k % o.buffers]
                want = expected_columns(o.n, o.m, cols, k)
                bad += int(np.count_nonzero(got != want))
            bad = int(comm.allreduce(bad))

            comm.barrier()
            t0 = time.perf_counter()
            for _ in range(o.frames):
                turn.execute()
            seconds = comm.allreduce(time.perf_counter() - t0, "max")
            strategy = turn.chosen_strategy.name

        if comm.rank == 0:
            gbytes = o.n * o.m * 8 * o.frames / seconds / 1e9
            if bad == 0:
                status = "verified %d frames element by element" % o.frames
            else:
                status = "WRONG: %d elements differ" % bad
            print("corner turn %dx%d complex64, %d ranks, %d buffers, %s: %s; "
                  "%.1f frames/s, %.2f GB/s"
                  % (o.n, o.m, comm.size, o.buffers, strategy, status,
                     o.frames / seconds, gbytes))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
