#!/usr/bin/env python3
"""What a learned file saves a run (docs/api.md, "A learned file"): the first
calls of a corner turn under AUTO, three ways in one run, each on a fresh
transfer: the static rule's one route (learning off), learning from nothing,
and starting from the file the learning run saved. Rounds repeat the three
in a rotating order. Each call's time is the slowest rank's; the last call
of each transfer is checked against the transpose.

usage: mpiexec.mpich -n 2 build/python/dri-python bench/learned_start.py
       [--shape 2048x2048] [--calls 40] [--rounds 3] [--file PATH]
"""

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import dri

DTYPE = np.complex64


def corner_turn(comm, shape, learning=None, learned_file=None):
    """Row blocks into column blocks, rings of 2 NumPy arrays; committed."""
    data = dri.GlobalData(shape, DTYPE)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    layout = dri.Layout.packed(2)
    t = dri.Transfer("corner turn")
    t.send(rows, layout, [np.empty(rows.block(layout).local_extent, DTYPE) for _ in range(2)])
    t.recv(cols, layout, [np.empty(cols.block(layout).local_extent, DTYPE) for _ in range(2)])
    if learning is not None:
        t.learning(learning)
    if learned_file is not None:
        t.learned_file(learned_file)
    t.commit()
    return t, rows.block(layout), cols.block(layout)


def fill(t, sb, nx):
    """Every send buffer holds its rows of the global array i * nx + j."""
    i = np.arange(sb.owned_first[0], sb.owned_last[0] + 1).reshape(-1, 1)
    j = np.arange(nx).reshape(1, -1)
    for buf in t.send_buffers:
        buf[...] = (i * nx + j).astype(DTYPE)


def right(t, rb, nx, into):
    i = np.arange(rb.owned_first[0], rb.owned_last[0] + 1).reshape(-1, 1)
    j = np.arange(rb.owned_first[1], rb.owned_last[1] + 1).reshape(1, -1)
    return np.array_equal(t.recv_buffers[into], (i * nx + j).astype(DTYPE))


def first_calls(comm, t, sb, rb, nx, calls):
    """The slowest rank's seconds for each of the first `calls` calls, and
    whether the last one delivered the transpose on every rank."""
    fill(t, sb, nx)
    times = []
    for _ in range(calls):
        into = t.current_recv_buffer
        comm.barrier()
        start = time.perf_counter()
        t.execute()
        times.append(comm.allreduce(time.perf_counter() - start, "max"))
    ok = comm.allreduce(float(not right(t, rb, nx, into)), "max") == 0
    return times, ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="2048x2048")
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--file", default="", help="the learned file (default: a temporary)")
    args = ap.parse_args()
    shape = tuple(int(n) for n in args.shape.split("x"))
    with dri.Session():
        comm = dri.COMM_WORLD
        path = args.file
        if not path:
            pid = int(comm.allreduce(float(os.getpid() if comm.rank == 0 else 0), "max"))
            path = os.path.join(tempfile.gettempdir(), "dri-learned-start-%d" % pid)
        ways = ["learning off", "learning from nothing", "from the learned file"]
        results = {w: [] for w in ways}
        notes = {w: set() for w in ways}
        wrong = 0
        try:
            for r in range(args.rounds):
                for k in range(3):
                    # Round 0 runs them in this order, so the file exists
                    # before a transfer starts from it.
                    way = ways[(k + r) % 3]
                    if way == "learning off":
                        t, sb, rb = corner_turn(comm, shape, learning=dri.Learning.OFF)
                    elif way == "learning from nothing":
                        t, sb, rb = corner_turn(comm, shape, learned_file="")
                    else:
                        t, sb, rb = corner_turn(comm, shape, learned_file=path)
                    times, ok = first_calls(comm, t, sb, rb, shape[1], args.calls)
                    wrong += not ok
                    if way == "learning from nothing":
                        t.save_learned(path)
                    if way == "from the learned file":
                        notes[way].add("seeded" if t.learned_seeded() else "NOT seeded")
                    state = t.learning_state()
                    notes[way].add("explored %d" % state["explored"])
                    notes[way].add("ran " + str(t.chosen_strategy).split(".")[-1])
                    results[way].append(times)
                    t.close()
        finally:
            comm.barrier()
            if comm.rank == 0 and not args.file and os.path.exists(path):
                os.remove(path)
        if comm.rank != 0:
            return
        print("corner turn %s complex64 on %d ranks: the first %d calls, %d rounds"
              % (args.shape, comm.size, args.calls, args.rounds))
        print("%-24s %12s %10s %10s %10s  %s" % ("", "sum (ms)", "median", "p99", "max",
                                                  "notes"))
        for way in ways:
            calls = sorted(t for times in results[way] for t in times)
            sums = [sum(times) * 1e3 for times in results[way]]
            p99 = calls[min(len(calls) - 1, int(0.99 * len(calls)))]
            print("%-24s %12s %10.3f %10.3f %10.3f  %s" % (
                way, "/".join("%.1f" % s for s in sums), statistics.median(calls) * 1e3,
                p99 * 1e3, calls[-1] * 1e3, ", ".join(sorted(notes[way]))))
        print("data: %s" % ("every checked call right" if wrong == 0 else "%d WRONG" % wrong))


if __name__ == "__main__":
    main()
