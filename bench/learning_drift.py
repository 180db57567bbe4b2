#!/usr/bin/env python3
"""AUTO that learns while the machine changes (docs/concepts.md, "AUTO keeps
learning"): one dri-bench run of many calls, adaptive AUTO beside every
fixed strategy and the memcpy bound, interleaved call by call; after
--change-after seconds a co-runner starts (by default a process copying
256 MiB arrays in a loop, as another job on the node would) and runs to the
end. Prints, per window of --window calls, each method's median (the slowest
rank's time of each call) and which fixed strategy was fastest, then AUTO's
routes, times and switches as dri-bench reports them.

usage: bench/learning_drift.py [--mpiexec "mpiexec.mpich -n 2"] [--bench build/bench/dri-bench]
                               [--reps 3000] [--window 250] [--change-after 20]
                               [--co-runner "CMD"] [-- dri-bench row flags]
The default row is a 16 MiB double reshape with 1 KiB runs on the sender
side (--shape 16384x128 --send block,whole --recv whole,block).
"""

import argparse
import csv
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

STRATEGIES = ["auto", "p2p", "packed", "alltoallw"]
ROW = ["--shape", "16384x128", "--type", "double", "--send", "block,whole",
       "--recv", "whole,block"]
HOG = ("import time, numpy as np\n"
       "a = np.ones(1 << 25); b = np.empty_like(a)\n"
       "while True: np.copyto(b, a)\n")


def per_call(trace):
    """{method: [slowest rank's ms of call k]} from dri-bench's trace."""
    calls = {}
    with open(trace, encoding="utf-8") as f:
        for row in csv.DictReader(f):
            reps = calls.setdefault(row["method"], {})
            k = int(row["rep"])
            reps[k] = max(reps.get(k, 0.0), float(row["ms"]))
    return {m: [reps[k] for k in sorted(reps)] for m, reps in calls.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mpiexec", default="mpiexec.mpich -n 2")
    ap.add_argument("--bench", default="build/bench/dri-bench")
    ap.add_argument("--reps", type=int, default=3000)
    ap.add_argument("--window", type=int, default=250)
    ap.add_argument("--change-after", type=float, default=20.0,
                    help="seconds after the start when the co-runner starts")
    ap.add_argument("--co-runner", default=None,
                    help="the command that changes the machine (default: a memory copier)")
    ap.add_argument("row", nargs="*", help="dri-bench flags of the row")
    args = ap.parse_args()
    methods = ["dri_" + s for s in STRATEGIES] + ["memcpy_bound"]
    with tempfile.TemporaryDirectory() as tmp:
        trace, out = os.path.join(tmp, "trace.csv"), os.path.join(tmp, "run.json")
        cmd = shlex.split(args.mpiexec) + [args.bench] + (args.row or ROW) + [
            "--memory", "heap", "--strategies", ",".join(STRATEGIES), "--methods",
            ",".join(methods), "--reps", str(args.reps), "--warmup", "0", "--rotate",
            "--trace", trace,
            "--json", out]
        print("+", " ".join(shlex.quote(c) for c in cmd), flush=True)
        bench = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        co = None
        try:
            started = time.time()
            while bench.poll() is None and time.time() - started < args.change_after:
                time.sleep(0.1)
            if bench.poll() is None:
                co_cmd = (shlex.split(args.co_runner) if args.co_runner
                          else ["/usr/bin/python3", "-c", HOG])
                co = subprocess.Popen(co_cmd)
                print(f"co-runner started after {time.time() - started:.1f} s", flush=True)
            if bench.wait() != 0:
                sys.exit("dri-bench failed")
        finally:
            if co:
                co.kill()
                co.wait()
        calls = per_call(trace)
        with open(out, encoding="utf-8") as f:
            run = json.load(f)["runs"][0]
    fixed = [m for m in methods[1:-1] if m in calls]
    print(f"{'calls':>11s} " + " ".join(f"{m[4:] if m.startswith('dri_') else 'memcpy':>10s}"
                                        for m in methods if m in calls) + "  fastest fixed")
    # The calls the trace holds (fewer than --reps when DRI_BENCH_MAX_REPS caps the run).
    recorded = min(len(v) for v in calls.values())
    for lo in range(0, recorded, args.window):
        med = {m: statistics.median(calls[m][lo:lo + args.window]) for m in calls}
        best = min(fixed, key=lambda m: med[m])
        print(f"{lo:5d}-{lo + args.window - 1:5d} " +
              " ".join(f"{med[m]:10.3f}" for m in methods if m in calls) +
              f"  {best[4:]} (AUTO/it {med['dri_auto'] / med[best]:.2f})")
    note = next((m.get("note", "") for m in run["methods"] if m["name"] == "dri_auto"), "")
    print("dri_auto:", note)


if __name__ == "__main__":
    main()
