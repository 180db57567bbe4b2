"""The last rank raises between collective calls while the others wait in a
commit. Run as `python -m dri one_rank_raises.py`, the job ends with the
traceback instead of waiting forever (ctest's timeout fails a hang). With
--exit-code N the last rank calls sys.exit(N) instead of raising."""

import argparse
import sys

import numpy as np

import dri

parser = argparse.ArgumentParser()
parser.add_argument("--exit-code", type=int)
args = parser.parse_args()

dri.init()
comm = dri.COMM_WORLD
data = dri.GlobalData((8, 8), np.float64)
rows = dri.Distribution(data, "block,whole", comm)
cols = dri.Distribution(data, "whole,block", comm)
layout = dri.Layout.packed(2)
t = dri.Transfer("turn")
t.send(rows, layout, rows.empty(layout, 1))
t.recv(cols, layout, cols.empty(layout, 1))
if comm.rank == comm.size - 1:
    if args.exit_code is not None:
        print("one_rank_raises: rank %d exits with %d" % (comm.rank, args.exit_code), flush=True)
        sys.exit(args.exit_code)
    raise RuntimeError("one_rank_raises: rank %d failed on purpose" % comm.rank)
t.commit()  # the others wait here for the last rank
print("one_rank_raises: WRONG, the commit completed without the last rank")
