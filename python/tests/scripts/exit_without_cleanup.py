"""Leaves committed transfers (their MPI datatypes and communicators) and
node shared memory alive at exit, without a Session: dri's exit handler
releases them before MPI_Finalize, so MPICH reports no leaked handle.

With --skip-dri-finalize the handler is replaced by a bare MPI_Finalize: the
negative control, in which MPICH must report the leak."""

import atexit
import sys

import numpy as np

import dri

dri.init()
comm = dri.COMM_WORLD
data = dri.GlobalData((32, 32), np.float64)
rows = dri.Distribution(data, "block,whole", comm)
cols = dri.Distribution(data, "whole,block", comm)
rl, cl = dri.Layout.packed(2), dri.Layout.ordered([1, 0])
transfers = []
for strategy in (dri.Strategy.ALLTOALLW, dri.Strategy.P2P):
    t = dri.Transfer(str(strategy))
    t.send(rows, rl, rows.empty(rl, 2))
    t.recv(cols, cl, cols.empty(cl, 2))
    t.strategy(strategy)
    t.commit()
    t.execute()
    transfers.append(t)
memory = dri.SharedMemory(4096)
view = memory.as_array(np.float64)
if "--skip-dri-finalize" in sys.argv:
    atexit.unregister(dri._at_exit)
    atexit.register(dri._dri._mpi_finalize)
print("rank %d: exiting with %d transfers and shared memory alive"
      % (comm.rank, len(transfers)))
