"""Arrays dri.shared_arrays puts in node shared memory are ordinary NumPy
buffers to mpi4py: Sendrecv, Allreduce and Bcast on them give exact data.
Needs mpi4py on dri's MPI library (an Open MPI build of dri with Debian's
mpi4py); skipped otherwise. mpi4py.MPI is imported inside the test, not at
collection (see test_mpi4py.py)."""

import numpy as np
import pytest

import dri

pytest.importorskip("mpi4py")


def test_mpi4py_on_handler_arrays(MPI):
    world = MPI.COMM_WORLD
    rank, size = world.Get_rank(), world.Get_size()
    n = 1 << 17  # 1 MiB of float64: at the default threshold
    with dri.shared_arrays():
        send = np.arange(n, dtype=np.float64) + rank * n
        recv, total = np.empty(n), np.empty(n)
        counts = np.full(n, rank + 1, np.int64)
    assert all(dri.in_shared_memory(a) for a in (send, recv, total, counts))
    left, right = (rank - 1) % size, (rank + 1) % size
    world.Sendrecv(send, dest=right, recvbuf=recv, source=left)
    np.testing.assert_array_equal(recv, np.arange(n) + left * n)
    world.Allreduce(send, total)
    np.testing.assert_array_equal(
        total, size * np.arange(n) + n * size * (size - 1) // 2)
    world.Allreduce(MPI.IN_PLACE, counts)
    assert (counts == size * (size + 1) // 2).all()
    head = recv[:n // 2]  # a view of handler memory
    if rank == size - 1:
        head[...] = np.arange(n // 2) * 3.0
    world.Bcast(head, root=size - 1)
    np.testing.assert_array_equal(recv[:n // 2], np.arange(n // 2) * 3.0)
