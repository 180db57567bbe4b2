"""Two-stage parallel 2-D FFT of an N x N complex matrix: numpy.fft along the
rows of each process's row block, a dri corner turn to column blocks (columns
contiguous), numpy.fft along the columns. Every frame's result is checked
against numpy.fft.fft2 of the whole input matrix, gathered on every process
by a second dri transfer.

    mpiexec.mpich -n 2 python3 examples/python/two_stage_fft.py --n 1024

Then the frames are timed twice: one after the other (row FFTs, execute,
column FFTs), and pipelined over rings of buffers (start the corner turn of
frame k, compute the row FFTs of frame k + 1 and the column FFTs of frame
k - 1 while it moves, wait). The pipelined/non-pipelined time ratio is
printed.
"""

import argparse
import sys
import time

import numpy as np

import dri


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, default=1024, help="rows and columns")
    p.add_argument("--frames", type=int, default=16)
    p.add_argument("--strategy", default="AUTO",
                   choices=list(dri.Strategy.__members__))
    p.add_argument("--reps", type=int, default=3,
                   help="timed runs of each method (the best counts)")
    return p.parse_args()


class TwoStageFFT:
    """The corner turn of the FFT and the gathering transfer of the check."""

    def __init__(self, comm, n, strategy):
        self.comm = comm
        matrix = dri.GlobalData((n, n), np.complex128)
        self.row_major = dri.Layout.packed(2)
        self.col_major = dri.Layout.ordered([1, 0])
        by_rows = dri.Distribution(matrix, "block,whole", comm)
        by_cols = dri.Distribution(matrix, "whole,block", comm)
        rb = by_rows.block(self.row_major)
        cb = by_cols.block(self.col_major)
        self.rows = slice(rb.owned_first[0], rb.owned_last[0] + 1)
        self.cols = slice(cb.owned_first[1], cb.owned_last[1] + 1)
        # Ring of 2 on each side: frame k moves while k + 1 and k - 1 compute.
        self.src = by_rows.empty(self.row_major, 2)
        self.dst = by_cols.empty(self.col_major, 2)
        self.turn = dri.Transfer("fft corner turn")
        self.turn.send(by_rows, self.row_major, self.src)
        self.turn.recv(by_cols, self.col_major, self.dst)
        self.turn.strategy(dri.Strategy.__members__[strategy])
        self.turn.commit()
        # Every process receives the whole matrix: the receiving side may
        # overlap (one range per process, all of them 0..n-1).
        ranges = "|".join(["0:%d" % (n - 1)] * comm.size)
        everything = "ranges(%s),whole" % ranges
        replicated = dri.Distribution(matrix, everything, comm)
        self.whole = replicated.empty(self.row_major)
        self.gather = dri.Transfer("gather")
        self.gather.send(by_rows, self.row_major, [self.src[0]])
        self.gather.recv(replicated, self.row_major, [self.whole])
        self.gather.commit()

    def close(self):
        self.turn.close()
        self.gather.close()

    def sequential(self, inputs):
        out = []
        for x in inputs:
            s = self.turn.current_send_buffer
            self.src[s][...] = np.fft.fft(x, axis=1)
            k = self.turn.current_recv_buffer
            self.turn.execute()
            out.append(np.fft.fft(self.dst[k], axis=0))
        return out

    def pipelined(self, inputs):
        out = [None] * len(inputs)
        t = self.turn
        self.src[t.current_send_buffer][...] = np.fft.fft(inputs[0], axis=1)
        for k in range(len(inputs)):
            moving, previous = t.current_recv_buffer, 1 - t.current_recv_buffer
            t.start()  # frame k: src[k % 2] -> dst[k % 2]
            if k + 1 < len(inputs):
                self.src[1 - moving][...] = np.fft.fft(inputs[k + 1], axis=1)
            if k > 0:
                out[k - 1] = np.fft.fft(self.dst[previous], axis=0)
            t.wait()
        out[-1] = np.fft.fft(self.dst[t.current_recv_buffer ^ 1], axis=0)
        return out

    def check(self, inputs, outputs):
        """Worst relative error against numpy.fft.fft2 of the gathered
        input."""
        worst = 0.0
        for x, y in zip(inputs, outputs):
            self.src[0][...] = x
            self.gather.execute()
            reference = np.fft.fft2(self.whole)[:, self.cols]
            err = np.abs(y - reference).max() / np.abs(reference).max()
            worst = max(worst, err)
        return self.comm.allreduce(worst, "max")

    def best_time(self, method, inputs, reps):
        best = float("inf")
        for _ in range(reps):
            self.comm.barrier()
            t0 = time.perf_counter()
            method(inputs)
            seconds = self.comm.allreduce(time.perf_counter() - t0, "max")
            best = min(best, seconds)
        return best


def main():
    o = parse()
    with dri.Session():
        comm = dri.COMM_WORLD
        fft = TwoStageFFT(comm, o.n, o.strategy)
        strategy = fft.turn.chosen_strategy.name
        rng = np.random.default_rng(1 + comm.rank)
        shape = (fft.rows.stop - fft.rows.start, o.n)
        inputs = [rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
                  for _ in range(o.frames)]
        seq, pipe = fft.sequential(inputs), fft.pipelined(inputs)
        same = comm.allreduce(float(all(np.array_equal(a, b)
                                        for a, b in zip(seq, pipe))), "min")
        err = fft.check(inputs, pipe)
        t_seq = fft.best_time(fft.sequential, inputs, o.reps)
        t_pipe = fft.best_time(fft.pipelined, inputs, o.reps)
        fft.close()
        ok = same == 1.0 and err < 1e-12
        if comm.rank == 0:
            print("two-stage FFT %dx%d complex128, %d ranks, %d frames, %s: %s "
                  "(max relative error %.1e against numpy.fft.fft2, pipelined "
                  "= one after the other: %s)"
                  % (o.n, o.n, comm.size, o.frames, strategy,
                     "verified" if ok else "WRONG", err, same == 1.0))
            print("non-pipelined %.2f ms/frame, pipelined %.2f ms/frame, "
                  "ratio pipelined/non-pipelined %.2f"
                  % (t_seq / o.frames * 1e3, t_pipe / o.frames * 1e3,
                     t_pipe / t_seq))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
