"""dri.pencil_distribution against mpi4py-fft itself: for every pencil
orientation mpi4py-fft reaches from slabs and 2-D pencils (including the
one whose split axes run along the Cartesian dimensions in reverse), dri's
block on each process is the Pencil's (subshape, substart, same process),
and a dri transfer between two pencils delivers exactly what
Pencil.transfer delivers. Needs mpi4py-fft and mpi4py on dri's MPI library
(an Open MPI build of dri with Debian's packages); skipped otherwise.

mpi4py.MPI is imported inside the tests, not at collection:
test_mpi4py.py checks that detection does not import it."""

import importlib.util
import itertools

import numpy as np
import pytest

import dri
from oracle import frame

if importlib.util.find_spec("mpi4py_fft") is None:
    pytest.skip("mpi4py-fft is not installed (python3-mpi4py-fft)",
                allow_module_level=True)


def subcomm_dims(size):
    """Subcomm dims: a slab, and at 4 ranks 2-D pencils aligned first in
    the last axis and in the first (whose pencil(2) splits axis 0 along
    Cartesian dimension 2 and axis 1 along 1: the reversed order)."""
    out = [[0, 1, 1], [1, 1, 0]]
    if size == 4:
        out += [[0, 0, 1], [1, 0, 0]]
    return out


def all_pencils(MPI, shape, dims, reorder):
    from mpi4py_fft.pencil import Pencil, Subcomm
    sub = Subcomm(MPI.COMM_WORLD, dims, reorder=reorder)
    aligned = dims.index(1)
    p0 = Pencil(sub, shape, axis=aligned)
    pens = [p0] + [p0.pencil(j) for j in range(3) if j != aligned]
    # and one step further, as a PFFT goes on (2 -> 1 -> 0)
    pens += [p.pencil(j) for p in pens[1:] for j in range(3)
             if j not in (p.axis, aligned)]
    return sub, pens


@pytest.mark.parametrize("reorder", [False, True])
def test_blocks_are_the_pencils(MPI, reorder):
    shape = (9, 7, 10)
    layout = dri.Layout.packed(3)
    world = MPI.COMM_WORLD
    for dims in subcomm_dims(world.Get_size()):
        sub, pens = all_pencils(MPI, shape, dims, reorder)
        for p in pens:
            for comm in (world, dri.COMM_WORLD):
                block = dri.pencil_distribution(np.float32, p, comm).block(layout)
                mine = (tuple(block.shape), tuple(block.owned_first))
                assert mine == (p.subshape, p.substart), (dims, p.axis)
                # the same on every process: no block is given to another
                every = world.allgather(mine)
                assert every == world.allgather((p.subshape, p.substart))
        sub.destroy()


def test_transfer_equals_pencil_transfer(MPI):
    shape, dtype = (8, 6, 11), np.complex128
    full = frame(shape, 2, dtype)
    layout = dri.Layout.packed(3)
    world = MPI.COMM_WORLD

    def block(p):
        return full[tuple(slice(s, s + n) for s, n in zip(p.substart, p.subshape))]

    for dims in subcomm_dims(world.Get_size()):
        sub, pens = all_pencils(MPI, shape, dims, True)
        for a, b in itertools.permutations(pens, 2):
            try:  # the pairs mpi4py-fft can transfer between (one swap)
                fft = a.transfer(b, dtype)
            except AssertionError:
                continue
            theirs = np.zeros(b.subshape, dtype)
            fft.forward(np.ascontiguousarray(block(a)), theirs)
            fft.destroy()
            da = dri.pencil_distribution(dtype, a, world)
            db = dri.pencil_distribution(dtype, b, world)
            src, ours = da.empty(layout), db.zeros(layout)
            src[...] = block(a)
            with dri.Transfer("pencil") as t:
                t.send(da, layout, [src])
                t.recv(db, layout, [ours])
                t.commit()
                t.execute()
            assert np.array_equal(ours, theirs), (dims, a.axis, b.axis)
            assert np.array_equal(ours, block(b))
        sub.destroy()


def test_grid_group_of_a_cartesian_communicator(MPI):
    """docs/python.md's recipe for a Cartesian communicator: array axes 1
    and 2 split along Cartesian dimensions 1 and 0."""
    world = MPI.COMM_WORLD
    dims = MPI.Compute_dims(world.Get_size(), 2)
    cart = world.Create_cart(dims, reorder=True)
    cdims, _, mine = cart.Get_topo()
    axis_dims = [1, 0]
    group = dri.grid_group(cart, [cdims[d] for d in axis_dims],
                           [mine[d] for d in axis_dims])
    shape = (3, 10, 7)
    part = "whole,block/%d,block/%d" % (cdims[1], cdims[0])
    block = dri.Distribution(dri.GlobalData(shape, np.float64), part,
                             group).block(dri.Layout.packed(3))
    for axis, d in zip((1, 2), axis_dims):
        want = np.array_split(np.arange(shape[axis]), cdims[d])[mine[d]]
        assert (block.owned_first[axis], block.owned_last[axis]) == \
            (want[0], want[-1])
    cart.Free()
