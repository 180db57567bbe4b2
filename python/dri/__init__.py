"""dri: the Data Reorganization Interface over MPI, for NumPy arrays.

    import dri, numpy as np
    with dri.Session():
        matrix = dri.GlobalData((N, M), np.complex64)
        rows = dri.Distribution(matrix, "block,whole", dri.COMM_WORLD)
        cols = dri.Distribution(matrix, "whole,block", dri.COMM_WORLD)
        ...

See docs/python.md.
"""

import atexit
import sys

from . import _interop
from ._errors import Error
from ._interop import ForeignMPIWarning

# Before the extension loads: see _interop.refuse_foreign_mpi4py.
if "mpi4py.MPI" in sys.modules:
    _interop.refuse_foreign_mpi4py()

from . import _dri  # noqa: E402
from ._dri import (  # noqa: E402
    COMM_SELF, COMM_WORLD, BlockInfo, Combine, Comm, CornerTurnBlocks,
    DimPart, Distribution, Edge, GlobalData, GridOrder, Group, Layout,
    Learning, MAX_PIECES, Partition, Role, RouteState, SharedMemory, Strategy,
    Transfer, Type,
    commit, corner_turn, corner_turn_blocks, empty, empty_like, error_string,
    initialized, kernel_tuning, mpi_library_version, zeros)
# NumPy's own allocations in node shared memory (NEP 49 handler).
from ._dri import (  # noqa: E402
    SHARED_ARRAYS_CACHE_BYTES, SHARED_ARRAYS_MIN_BYTES, in_shared_memory,
    set_shared_arrays, shared_arrays, shared_arrays_cache,
    shared_arrays_enabled, shared_arrays_stats, shared_arrays_trim)
from ._dri import (  # noqa: E402
    SUCCESS, ERR_ARG, ERR_NULL, ERR_HANDLE, ERR_NDIMS, ERR_EXTENT,
    ERR_OVERFLOW, ERR_TYPE, ERR_PARTITION, ERR_OVERLAP, ERR_MINMAX, ERR_GRID,
    ERR_LAYOUT, ERR_NOT_DISJOINT, ERR_NOT_COVERING, ERR_MISMATCH,
    ERR_NO_PARTNER, ERR_DUPLICATE, ERR_BUFFER, ERR_BUFFER_SIZE,
    ERR_BUFFER_COUNT, ERR_STATE, ERR_NOT_INITIALIZED, ERR_GROUP,
    ERR_INCONSISTENT, ERR_MPI, ERR_NO_MEMORY, ERR_INTERNAL, ERR_STRATEGY)

from ._boxes import box_views  # noqa: E402
from ._pencil import (  # noqa: E402
    grid_group, pencil_distribution, pencil_group, pencil_partition)

#: The version of the libdri this module loaded (DRI_Get_version): the one
#: number of CMake's project(), "major.minor.patch".
__version__ = _dri.__version__


def init():
    """Initialize MPI (MPI_Init_thread, MPI_THREAD_FUNNELED, when nobody
    has) and dri. Warns (dri.ForeignMPIWarning) when mpi4py.MPI is loaded on
    another MPI library."""
    _dri._check_mpi4py()
    _dri._mpi_init()
    if not _dri.initialized():
        _dri.init()
    # Our exit handler must run before any MPI_Finalize registered since
    # (mpi4py's): atexit runs the last registered first.
    atexit.unregister(_at_exit)
    atexit.register(_at_exit)


def finalize():
    """Release every dri object's MPI resources. MPI itself stays up until
    the interpreter exits (MPI cannot be initialized twice)."""
    if _dri.initialized():
        _dri.finalize()


class Session:
    """``with dri.Session():`` initializes MPI (if needed) and dri, and
    finalizes dri at the end of the block."""

    def __enter__(self):
        init()
        return self

    def __exit__(self, *exc):
        finalize()
        return False


def _at_exit():
    # Objects still alive at exit are released by dri's finalize, before
    # MPI_Finalize, so that MPI sees no leaked handle.
    finalize()
    _dri._mpi_finalize()


atexit.register(_at_exit)


def mpi4py_compatible():
    """True when mpi4py is built on the MPI library dri runs on (then an
    mpi4py.MPI.Comm is accepted wherever dri takes a communicator), False
    when it is built on another (importing mpi4py.MPI would then initialize
    a second MPI library in this process), None without mpi4py. Does not
    import mpi4py.MPI."""
    return _interop.mpi4py_compatible()


__all__ = [
    "BlockInfo", "COMM_SELF", "COMM_WORLD", "Combine", "Comm",
    "CornerTurnBlocks", "DimPart", "Distribution", "Edge", "Error",
    "ForeignMPIWarning", "GlobalData", "GridOrder", "Group", "Layout", "Learning",
    "MAX_PIECES", "Partition", "Role", "RouteState", "Session", "SharedMemory", "Strategy",
    "Transfer", "Type", "box_views", "commit",
    "corner_turn", "corner_turn_blocks", "empty", "empty_like",
    "error_string", "finalize", "grid_group", "init", "initialized", "kernel_tuning",
    "mpi4py_compatible", "pencil_distribution", "pencil_group",
    "pencil_partition", "zeros",
    "SHARED_ARRAYS_CACHE_BYTES", "SHARED_ARRAYS_MIN_BYTES", "in_shared_memory",
    "set_shared_arrays", "shared_arrays", "shared_arrays_cache",
    "shared_arrays_enabled", "shared_arrays_stats", "shared_arrays_trim",
    "mpi_library_version", "SUCCESS", "ERR_ARG", "ERR_NULL", "ERR_HANDLE",
    "ERR_NDIMS", "ERR_EXTENT", "ERR_OVERFLOW", "ERR_TYPE", "ERR_PARTITION",
    "ERR_OVERLAP", "ERR_MINMAX", "ERR_GRID", "ERR_LAYOUT", "ERR_NOT_DISJOINT",
    "ERR_NOT_COVERING", "ERR_MISMATCH", "ERR_NO_PARTNER", "ERR_DUPLICATE",
    "ERR_BUFFER", "ERR_BUFFER_SIZE", "ERR_BUFFER_COUNT", "ERR_STATE",
    "ERR_NOT_INITIALIZED", "ERR_GROUP", "ERR_INCONSISTENT", "ERR_MPI",
    "ERR_NO_MEMORY", "ERR_INTERNAL", "ERR_STRATEGY",
]
