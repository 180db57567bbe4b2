"""dri.pencil_distribution, pencil_group, grid_group: blocks of another
library's process grid (mpi4py-fft's pencils). Here without mpi4py: pencils
of the same shape as mpi4py-fft's (a tuple of sub-communicators, one per
axis, with Get_rank/Get_size) over Cartesian grids in every axis order and
with renumbered ranks (Create_cart's reorder), checked against the
partition rules (oracle.py); interop/test_mpi4py_fft.py checks them against
mpi4py-fft itself on Open MPI."""

import itertools

import numpy as np
import pytest

import dri
from oracle import block_range, frame


class Sub:
    """A sub-communicator as a Pencil sees one: its rank and size."""

    def __init__(self, rank, size):
        self.rank, self.size = rank, size

    def Get_rank(self):
        return self.rank

    def Get_size(self):
        return self.size


class Pencil:
    """mpi4py-fft's Pencil: axis k split over subcomm[k] (its _blockdist is
    oracle.block_range)."""

    def __init__(self, shape, subcomm):
        self.shape, self.subcomm = tuple(shape), tuple(subcomm)
        ranges = [block_range(n, s.Get_size(), s.Get_rank())
                  for n, s in zip(shape, subcomm)]
        self.substart = tuple(f for f, _ in ranges)
        self.subshape = tuple(l - f + 1 for f, l in ranges)


def cart_subs(rank, dims, shift):
    """The sub-communicators (one per Cartesian dimension) of the process of
    `rank` on a Cartesian grid of extents dims whose ranks were renumbered
    by `shift` (cart rank = (rank + shift) mod size)."""
    size = int(np.prod(dims))
    coords = np.unravel_index((rank + shift) % size, dims)
    return [Sub(int(c), d) for c, d in zip(coords, dims)]


def grids(size):
    return {1: [[1, 1]], 2: [[2, 1], [1, 2]], 4: [[2, 2], [4, 1]]}.get(size, [])


def pencils(shape, subs):
    """Pencils of every orientation over the two Cartesian dimensions: the
    aligned axis whole, the other two split along the dimensions in either
    order (mpi4py-fft's pencil(j) swaps them)."""
    one = Sub(0, 1)
    out = []
    for aligned in range(3):
        split = [a for a in range(3) if a != aligned]
        for order in itertools.permutations(range(2)):
            subcomm = [one] * 3
            for a, d in zip(split, order):
                subcomm[a] = subs[d]
            out.append(Pencil(shape, subcomm))
    return out


@pytest.mark.parametrize("shift", [0, 1])
def test_blocks_are_the_pencils(comm, shift):
    shape = (7, 10, 5)
    layout = dri.Layout.packed(3)
    for dims in grids(comm.size):
        for pen in pencils(shape, cart_subs(comm.rank, dims, shift)):
            dist = dri.pencil_distribution(np.float64, pen, comm)
            block = dist.block(layout)
            assert tuple(block.shape) == pen.subshape, dri.pencil_partition(pen)
            assert tuple(block.owned_first) == pen.substart
            assert dist.empty(layout).shape == pen.subshape


def test_transfer_between_pencils(comm):
    """Every pair of orientations, with renumbered ranks: dri's transfer
    delivers the receiving pencil's block exactly."""
    shape, dtype = (6, 9, 5), np.complex128
    full = frame(shape, 3, dtype)
    layout = dri.Layout.packed(3)
    for dims in grids(comm.size):
        pens = pencils(shape, cart_subs(comm.rank, dims, 1))
        for a, b in itertools.permutations(pens[::2] + [pens[1]], 2):
            da = dri.pencil_distribution(dtype, a, comm)
            db = dri.pencil_distribution(dtype, b, comm)
            src, dst = [dri.empty(a.subshape, dtype)], [dri.zeros(b.subshape, dtype)]
            src[0][...] = full[tuple(slice(s, s + n) for s, n in zip(a.substart, a.subshape))]
            with dri.Transfer("pencils") as t:
                t.send(da, layout, src)
                t.recv(db, layout, dst)
                t.commit()
                t.execute()
            want = full[tuple(slice(s, s + n) for s, n in zip(b.substart, b.subshape))]
            assert np.array_equal(dst[0], want)


def test_grid_group_order(comm):
    """Group index i holds the process of row-major grid index i."""
    size = comm.size
    grid = [size, 1]
    mine = size - 1 - comm.rank  # a permutation of the ranks
    g = dri.grid_group(comm, grid, [mine, 0])
    assert g.size == size and g.index == mine
    assert g.ranks[mine] == comm.rank


def test_refusals(comm):
    with pytest.raises(ValueError, match="communicator has"):
        dri.grid_group(comm, [comm.size + 1], [0])
    with pytest.raises(ValueError, match="outside the grid"):
        dri.grid_group(comm, [comm.size], [comm.size])
    if comm.size > 1:
        with pytest.raises(ValueError, match="same grid coordinates"):
            dri.grid_group(comm, [comm.size], [0])
    pen = Pencil((4, 4, 4), [Sub(0, 1)] * 3)
    with pytest.raises(ValueError, match="the data is"):
        dri.pencil_distribution(dri.GlobalData((4, 4, 5), np.float64), pen,
                                dri.COMM_SELF)
