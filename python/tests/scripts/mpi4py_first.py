"""mpi4py.MPI imported before dri. On mpi4py's own MPI library dri loads and
takes its communicators; on another one `import dri` is refused with an
ImportError (the other library's MPI_* symbols would take dri's calls)."""

import numpy as np
from mpi4py import MPI

try:
    import dri
except ImportError as e:
    if "mpi4py.MPI was imported first" not in str(e):
        raise
    print("refused: %s" % e)
else:
    with dri.Session():
        world = MPI.COMM_WORLD
        data = dri.GlobalData((6, 4), np.int32)
        rows = dri.Distribution(data, "block,whole", world)
        cols = dri.Distribution(data, "whole,block", world)
        rl, cl = dri.Layout.packed(2), dri.Layout.ordered([1, 0])
        src, dst = rows.empty(rl, 1), cols.empty(cl, 1)
        full = np.arange(24, dtype=np.int32).reshape(6, 4)
        b, c = rows.block(rl), cols.block(cl)
        src[0][...] = full[b.owned_first[0]:b.owned_last[0] + 1]
        t = dri.Transfer("turn")
        t.send(rows, rl, src)
        t.recv(cols, cl, dst)
        dri.commit(world, [t])
        t.execute()
        ok = (dst[0] == full[:, c.owned_first[1]:c.owned_last[1] + 1]).all()
        print("verified" if ok else "WRONG")
