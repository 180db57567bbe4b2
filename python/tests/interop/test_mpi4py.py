"""mpi4py interop: dri imported and initialized first, then mpi4py.MPI.
A communicator from mpi4py is accepted when mpi4py runs on dri's MPI library
and refused with dri.ERR_ARG otherwise (Debian's mpi4py is built on Open MPI:
under an MPICH build of dri this tests the refusal, under an Open MPI build
the acceptance)."""

import sys
import warnings

import numpy as np
import pytest

import dri
from oracle import block_range, frame

pytest.importorskip("mpi4py")


def test_detection_does_not_import_mpi4py_mpi():
    assert "mpi4py.MPI" not in sys.modules
    compatible = dri.mpi4py_compatible()
    assert "mpi4py.MPI" not in sys.modules
    from mpi4py import MPI
    theirs = MPI.Get_library_version().split("\0")[0].rstrip()
    same = theirs == dri.mpi_library_version()
    assert compatible == same


def test_warns_once_when_mpi4py_runs_on_another_mpi():
    """After `from mpi4py import MPI` (dri imported and initialized first,
    by conftest), the first use of a communicator warns, naming both
    libraries and the Open MPI build command; later uses do not."""
    from mpi4py import MPI
    theirs = MPI.Get_library_version().split("\0")[0].rstrip()
    if dri.mpi4py_compatible():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            dri.Group(dri.COMM_WORLD)
        return
    with pytest.warns(dri.ForeignMPIWarning) as record:
        dri.Group(dri.COMM_WORLD)
    assert len(record) == 1
    text = str(record[0].message)
    assert dri.mpi_library_version().split("\n")[0] in text
    assert theirs.split("\n")[0] in text
    assert "tools/build.sh build-openmpi" in text
    assert "mpicxx.openmpi" in text
    assert MPI.COMM_WORLD.Get_size() == 1  # the trap the warning is about
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dri.COMM_WORLD.size >= 1
        dri.Group(dri.COMM_WORLD)


def corner_turn(comm, rank, size):
    """A 12 x 10 corner turn over `comm`, checked exactly."""
    shape, dtype = (12, 10), np.complex64
    data = dri.GlobalData(shape, dtype)
    rows = dri.Distribution(data, "block,whole", comm)
    cols = dri.Distribution(data, "whole,block", comm)
    rl, cl = dri.Layout.packed(2), dri.Layout.ordered([1, 0])
    src, dst = rows.empty(rl, 1), cols.empty(cl, 1)
    first, last = block_range(shape[0], size, rank)
    src[0][...] = frame(shape, 2, dtype)[first:last + 1]
    t = dri.Transfer("turn")  # the same name on every rank
    t.send(rows, rl, src)
    t.recv(cols, cl, dst)
    dri.commit(comm, [t])
    t.execute()
    c0, c1 = block_range(shape[1], size, rank)
    np.testing.assert_array_equal(dst[0], frame(shape, 2, dtype)[:, c0:c1 + 1])


def test_foreign_communicator_refused():
    from mpi4py import MPI
    if dri.mpi4py_compatible():
        pytest.skip("mpi4py runs on dri's MPI: see test_communicator_accepted")
    data = dri.GlobalData((4, 4), np.float32)
    calls = [lambda: dri.Group(MPI.COMM_WORLD),
             lambda: dri.Group(MPI.COMM_SELF, [0]),
             lambda: dri.Distribution(data, "block,whole", MPI.COMM_WORLD),
             lambda: dri.commit(MPI.COMM_WORLD, [])]
    for call in calls:
        with pytest.raises(dri.Error, match="from another MPI library") as e:
            call()
        assert e.value.code == dri.ERR_ARG
        assert dri.mpi_library_version().split("\n")[0] in str(e.value)
    # dri goes on working beside the other MPI library.
    corner_turn(dri.COMM_WORLD, dri.COMM_WORLD.rank, dri.COMM_WORLD.size)


def test_communicator_accepted():
    from mpi4py import MPI
    if not dri.mpi4py_compatible():
        pytest.skip("mpi4py runs on another MPI: "
                    "see test_foreign_communicator_refused")
    world = MPI.COMM_WORLD
    group = dri.Group(world)
    assert group.size == world.Get_size() and group.index == world.Get_rank()
    corner_turn(world, world.Get_rank(), world.Get_size())
    # A communicator dri's world does not have: the ranks in reverse order.
    reversed_comm = world.Split(0, world.Get_size() - world.Get_rank())
    corner_turn(reversed_comm, reversed_comm.Get_rank(),
                reversed_comm.Get_size())
    reversed_comm.Free()
