"""The cost of one execute() from Python: the transfer of
python/tests/execute_overhead.cpp (64 x 64 complex float corner turn, two
buffers per side), checked once, then timed the same way."""

import sys
import time

import numpy as np

import dri

N, BATCHES, CALLS = 64, 5, 1000


def time_execute(t, comm):
    for _ in range(200):
        t.execute()
    best = float("inf")
    execute = t.execute
    for _ in range(BATCHES):
        comm.barrier()
        t0 = time.perf_counter()
        for _ in range(CALLS):
            execute()
        best = min(best, (time.perf_counter() - t0) / CALLS * 1e6)
    return comm.allreduce(best, "max")


def main():
    with dri.Session():
        comm = dri.COMM_WORLD
        matrix = dri.GlobalData((N, N), np.complex64)
        rows = dri.Distribution(matrix, "block,whole", comm)
        cols = dri.Distribution(matrix, "whole,block", comm)
        row_major, col_major = dri.Layout.packed(2), dri.Layout.ordered([1, 0])
        src, dst = rows.zeros(row_major, 2), cols.zeros(col_major, 2)
        full = (np.arange(N * N).reshape(N, N) + 1j).astype(np.complex64)
        rb, cb = rows.block(row_major), cols.block(col_major)
        src[0][...] = full[rb.owned_first[0]:rb.owned_last[0] + 1]
        with dri.Transfer("overhead") as t:
            t.send(rows, row_major, src)
            t.recv(cols, col_major, dst)
            t.commit()
            t.execute()
            c0, c1 = cb.owned_first[1], cb.owned_last[1]
            same = np.array_equal(dst[0], full[:, c0:c1 + 1])
            ok = comm.allreduce(float(same), "min")
            us = time_execute(t, comm)
        if comm.rank == 0:
            print("Python execute(), 64x64 complex float, %d ranks: %.2f us%s"
                  % (comm.size, us, "" if ok else " WRONG DATA"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
