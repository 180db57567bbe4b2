#!/usr/bin/env python3
"""The run-length sweep behind AUTO's routes (docs/concepts.md, "How AUTO routes").

Runs dri-bench once per row, every method of the row in the same run, heap
buffers, the methods' order varying from rep to rep (--rotate: each method
runs right after every other equally often), and prints per row each
method's median, the route AUTO ran at the end (AUTO learns: docs/api.md,
"AUTO that learns") with its switches, AUTO over the best other dri
strategy (by medians, then by minimums), AUTO over MPI_Alltoallw with
subarray types (medians) and AUTO over the fixed strategy of the route it ran
at the end (/own: with DRI_AUTO_LEARNING=off, one route in two transfers of
the same run, the spread the machine alone puts between equal medians); then
how many rows kept AUTO within 5% of the best fixed strategy and no slower
than the subarray baseline. With --reps 200 and more, AUTO's first calls
(learning) are a small part of its times.
Rows: double reshapes of about --mib MiB whose contiguous runs are 8 B to
256 KiB, strided on the sender side (--send block,whole --recv whole,block)
and on the receiver side (the mirror), then the corner turn (4096^2 cfloat)
and the pencil (256^3 float, 64 MiB), scaled with --mib.

usage: bench/route_sweep.py [--mpiexec "mpiexec.mpich -n 2"] [--bench build/bench/dri-bench]
                            [--mib 128] [--reps 7] [--warmup 2] [--runs 8,64,...] [--json FILE]
"""

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

STRATEGIES = ["alltoallw", "packed", "p2p", "auto"]
BASELINE = "mpi_alltoallw_subarray"
RUNS = [8, 64, 256, 1024, 4096, 32768, 262144]


def ranks_of(mpiexec):
    """The -n / -np count in the mpiexec command (2 when not given)."""
    words = shlex.split(mpiexec)
    for flag in ("-n", "-np"):
        if flag in words:
            return int(words[words.index(flag) + 1])
    return 2


def run_rows(mib, ranks, runs):
    """(label, dri-bench flags) per row; runs are bytes per contiguous run."""
    rows = []
    total = mib * 2**20 // 8  # doubles
    for side, send, recv in (("sender", "block,whole", "whole,block"),
                             ("receiver", "whole,block", "block,whole")):
        for run in runs:
            cols = max(run * ranks // 8, ranks)  # each rank's share of a row is one run
            height = max(total // cols, ranks)
            rows.append((f"{side}-strided {run} B", ["--shape", f"{height}x{cols}", "--type",
                         "double", "--send", send, "--recv", recv]))
    # 4096^2 cfloat and 256^3 float at 128 MiB: sides of `total` cells squared, cubed.
    turn = max(round(total ** (1 / 2)), 2 * ranks)
    pencil = max(round(total ** (1 / 3)), 2 * ranks)
    rows.append((f"corner turn {turn}^2 cfloat", ["--scenario", "corner_turn", "--shape",
                 f"{turn}x{turn}", "--type", "cfloat"]))
    rows.append((f"pencil {pencil}^3 float", ["--scenario", "pencil", "--shape",
                 f"{pencil}x{pencil}x{pencil}", "--type", "float"]))
    return rows


def run_one(args, flags):
    """The JSON run of one row (dri-bench exits non-zero on wrong data)."""
    methods = ",".join(["dri_" + s for s in STRATEGIES] + [BASELINE])
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "row.json")
        cmd = shlex.split(args.mpiexec) + [args.bench] + flags + [
            "--memory", "heap", "--strategies", ",".join(STRATEGIES), "--methods", methods,
            "--reps", str(args.reps), "--warmup", str(args.warmup), "--rotate", "--json", out]
        print("+", " ".join(shlex.quote(c) for c in cmd), file=sys.stderr, flush=True)
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(out, encoding="utf-8") as f:
            return json.load(f)["runs"][0]


def ratio(times, auto_name):
    """AUTO's time over the best other dri strategy's, and that strategy."""
    best = min((v, k) for k, v in times.items() if k != auto_name)
    return times[auto_name] / best[0], best[1]


def auto_route(note):
    """The route AUTO ran at the end, and its switches when it learned
    ("p2p", "packed/1sw"), from dri-bench's note."""
    running = re.search(r"running (\w+)", note)
    if not running:
        return note.replace("chose ", "")
    switches = re.search(r"(\d+) switch", note)
    return running.group(1) + (f"/{switches.group(1)}sw" if switches else "")


def summary(label, run):
    """One printed row and its numbers (medians; the ratio of minimums too,
    which a loaded machine disturbs less)."""
    dri = {m["name"][4:]: m for m in run["methods"] if m["name"][4:] in STRATEGIES}
    base = next((m for m in run["methods"] if m["name"] == BASELINE), None)
    note = auto_route(dri["auto"].get("note", ""))
    by_median, best = ratio({k: m["median_s"] for k, m in dri.items()}, "auto")
    by_min, _ = ratio({k: m["min_s"] for k, m in dri.items()}, "auto")
    cells = [f"{1e3 * dri[s]['median_s']:8.2f}" if s in dri else "       -" for s in STRATEGIES]
    cells.append(f"{1e3 * base['median_s']:8.2f}" if base else "       -")
    over_base = dri["auto"]["median_s"] / base["median_s"] if base else None
    # AUTO over the fixed strategy of the route it ran at the end: with
    # DRI_AUTO_LEARNING=off, two transfers running the same route in the
    # same run, which is how far apart this machine puts equal medians.
    own = dri.get(note.split("/")[0])
    over_own = dri["auto"]["median_s"] / own["median_s"] if own else float("nan")
    print(f"{label:30s} {' '.join(cells)}  {note:9s} {by_median:6.2f} {best:9s} {by_min:6.2f}"
          f" {over_base if over_base else float('nan'):9.2f} {over_own:6.2f}", flush=True)
    return {"row": label, "auto": note, "learned": dri["auto"].get("note", ""), "best": best,
            "auto_over_best": by_median, "auto_over_own_route": over_own,
            "auto_over_best_min": by_min, "auto_over_subarray": over_base,
            "median_s": {k: m["median_s"] for k, m in dri.items()},
            "min_s": {k: m["min_s"] for k, m in dri.items()}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mpiexec", default="mpiexec.mpich -n 2")
    ap.add_argument("--bench", default="build/bench/dri-bench")
    ap.add_argument("--mib", type=int, default=128, help="MiB per reshape (default 128)")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--runs", default=",".join(map(str, RUNS)),
                    help="contiguous run lengths in bytes")
    ap.add_argument("--json", help="write the rows' numbers here")
    args = ap.parse_args()
    ranks = ranks_of(args.mpiexec)
    rows = run_rows(args.mib, ranks, [int(r) for r in args.runs.split(",")])
    heads = [f"{s:>8s}" for s in STRATEGIES] + [f"{'subarray':>8s}"]
    print(f"{'row (median ms)':30s} {' '.join(heads)}  {'AUTO':9s} {'/best':>6s} {'(best)':9s}"
          f" {'min':>6s} {'/subarray':>9s} {'/own':>6s}")
    out = [summary(label, run_one(args, flags)) for label, flags in rows]
    worst = max(r["auto_over_best"] for r in out)
    worst_min = max(r["auto_over_best_min"] for r in out)
    print(f"worst AUTO/best: {worst:.2f} (medians), {worst_min:.2f} (minimums)")
    within = sum(r["auto_over_best"] <= 1.05 for r in out)
    based = [r for r in out if r["auto_over_subarray"] is not None]
    print(f"AUTO within 5% of the best fixed strategy (medians): {within} of {len(out)} rows; "
          f"no slower than the subarray baseline: "
          f"{sum(r['auto_over_subarray'] <= 1.0 for r in based)} of {len(based)} rows")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
