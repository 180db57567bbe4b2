"""Blocks of a process grid that is not dri's: mpi4py-fft's pencils and
Cartesian communicators.

dri gives group index i the grid coordinates of i in row-major order over
the split dimensions of the partition (docs/concepts.md). mpi4py-fft splits
array axis k over the sub-communicator subcomm[k] of a Cartesian
communicator, which need not be in that order (after Pencil.pencil(j) the
split axes may run along the Cartesian dimensions in reverse), and
Create_cart(reorder=True) may renumber the processes. So the group is built
from what each process knows, its coordinate along each split axis,
gathered over the communicator: the blocks are then those of the pencil on
every process, whatever the rank order."""

from . import _dri


def _gather(comm, value):
    """Every process's integer `value`, by rank of `comm`: mpi4py's
    allgather for an mpi4py communicator, otherwise (a dri.Comm) one
    allreduce per rank (exact: the values are small integers)."""
    if hasattr(comm, "allgather"):
        return [int(v) for v in comm.allgather(int(value))]
    out = []
    for r in range(comm.size):
        mine = float(value) if comm.rank == r else 0.0
        out.append(int(comm.allreduce(mine, "sum")))
    return out


def _rank_and_size(comm):
    if hasattr(comm, "Get_rank"):
        return comm.Get_rank(), comm.Get_size()
    return comm.rank, comm.size


def grid_group(comm, grid, coords):
    """The dri.Group over every process of `comm` in which this process has
    grid coordinates `coords` on a process grid of extents `grid` (one entry
    per split array axis, in the order of the axes): a distribution over
    it gives each process the block of its own coordinates. Collective over
    `comm` (a dri.Comm or an mpi4py communicator on dri's MPI library),
    which must have exactly prod(grid) processes, each with other
    coordinates.

    For a Cartesian communicator `cart` whose dimension axis_dims[i] splits
    the i-th split array axis:
        dims, _, mine = cart.Get_topo()
        dri.grid_group(cart, [dims[d] for d in axis_dims],
                       [mine[d] for d in axis_dims])
    """
    grid, coords = [int(g) for g in grid], [int(c) for c in coords]
    if len(grid) != len(coords):
        raise ValueError("grid_group: %d grid extents but %d coordinates"
                         % (len(grid), len(coords)))
    for g, c in zip(grid, coords):
        if g < 1 or not 0 <= c < g:
            raise ValueError("grid_group: coordinates %s outside the grid %s"
                             % (coords, grid))
    rank, size = _rank_and_size(comm)
    count = 1
    for g in grid:
        count *= g
    if count != size:
        raise ValueError("grid_group: a grid of %s is %d processes, the "
                         "communicator has %d" % (grid, count, size))
    linear = 0
    for g, c in zip(grid, coords):
        linear = linear * g + c
    index = _gather(comm, linear)
    ranks = [None] * size
    for r, i in enumerate(index):
        if ranks[i] is not None:
            raise ValueError("grid_group: ranks %d and %d have the same grid "
                             "coordinates (index %d of the grid %s)"
                             % (ranks[i], r, i, grid))
        ranks[i] = r
    return _dri.Group(comm, ranks)


def pencil_partition(pencil):
    """The dri partition text of an mpi4py-fft Pencil (or anything with
    `.shape` and `.subcomm`, one communicator per array axis): axis k is
    "block/p" over the p processes of subcomm[k], "whole" when p is 1.
    mpi4py-fft gives the first N mod p coordinates one element more, as
    dri does."""
    parts = []
    for sub in _subcomms(pencil):
        p = _rank_and_size(sub)[1]
        parts.append("whole" if p == 1 else "block/%d" % p)
    return ",".join(parts)


def _subcomms(pencil):
    subcomm = tuple(pencil.subcomm)
    if len(subcomm) != len(pencil.shape):
        raise ValueError("pencil: %d sub-communicators for %d axes"
                         % (len(subcomm), len(pencil.shape)))
    return subcomm


def pencil_group(pencil, comm=None):
    """The dri.Group over `comm` (default dri.COMM_WORLD: every process of
    the pencil and no other) whose blocks under pencil_partition(pencil)
    are the pencil's: the process of rank subcomm[k].Get_rank() along each
    split axis k gets the block of those coordinates. Collective over
    `comm`."""
    grid, coords = [], []
    for sub in _subcomms(pencil):
        r, p = _rank_and_size(sub)
        if p > 1:
            grid.append(p)
            coords.append(r)
    return grid_group(_dri.COMM_WORLD if comm is None else comm, grid, coords)


def pencil_distribution(data, pencil, comm=None):
    """The dri.Distribution whose block on each process is exactly its
    block of the mpi4py-fft `pencil`: same shape (pencil.subshape), same
    place (pencil.substart), same process. `data`: a dri.GlobalData of
    pencil.shape, or a dtype. `comm`: the processes of the pencil's
    Cartesian communicator (default dri.COMM_WORLD), a dri.Comm or an
    mpi4py communicator on dri's MPI library. Collective over `comm`.

        p0 = Pencil(Subcomm(MPI.COMM_WORLD, [0, 0, 1]), (N, N, N), axis=2)
        p1 = p0.pencil(1)
        x0 = dri.pencil_distribution(np.complex128, p0)
        x1 = dri.pencil_distribution(np.complex128, p1)
        # x0.empty(dri.Layout.packed(3)).shape == p0.subshape, and a
        # dri.Transfer from x0 to x1 moves what p0.transfer(p1, ...) moves.
    """
    if not isinstance(data, _dri.GlobalData):
        data = _dri.GlobalData(tuple(pencil.shape), data)
    if tuple(data.extents) != tuple(pencil.shape):
        raise ValueError("pencil_distribution: the data is %s, the pencil %s"
                         % (tuple(data.extents), tuple(pencil.shape)))
    return _dri.Distribution(data, pencil_partition(pencil),
                             pencil_group(pencil, comm))
