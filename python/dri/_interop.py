"""mpi4py interop: which MPI library an extension module links, read from
its file (the sonames it names) without importing it: importing mpi4py.MPI
initializes its MPI library inside this process."""

import importlib.util
import os
import re
import sys
import warnings

_SONAME = re.compile(rb"lib(?:mpi|mpich)[A-Za-z0-9_]*\.so(?:\.[0-9]+)*")


def linked_mpi(module):
    """The MPI shared libraries (sonames) the extension `module` names, or
    None when it is not installed."""
    try:
        spec = importlib.util.find_spec(module)
    except ImportError:
        return None
    if spec is None or not spec.origin:
        return None
    with open(spec.origin, "rb") as f:
        return sorted({m.decode() for m in _SONAME.findall(f.read())})


def mpi4py_compatible():
    """True when mpi4py.MPI links the MPI library dri's extension links,
    False when another, None when mpi4py is not installed."""
    theirs = linked_mpi("mpi4py.MPI")
    if theirs is None:
        return None
    return bool(set(theirs) & set(linked_mpi("dri._dri") or []))


# How to build dri on Debian's mpi4py's library (tools/build.sh --help).
OPENMPI_BUILD = ("tools/build.sh build-openmpi "
                 "-DMPI_C_COMPILER=/usr/bin/mpicc.openmpi "
                 "-DMPI_CXX_COMPILER=/usr/bin/mpicxx.openmpi "
                 "-DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.openmpi")


class ForeignMPIWarning(RuntimeWarning):
    """mpi4py.MPI is loaded on another MPI library than dri's: mpi4py's
    MPI.COMM_WORLD then has one process in every process."""


ForeignMPIWarning.__module__ = "dri"


def _version(text):
    # Some MPIs count the terminating NUL, or end with a newline.
    return text.split("\0")[0].rstrip()


def _first_line(text):
    return _version(text).split("\n")[0]


def _remedy():
    return ("To use mpi4py with dri, build dri on mpi4py's MPI library; for "
            "Debian's mpi4py (Open MPI), from dri's source tree:\n    %s\n"
            "and run with mpiexec.openmpi (docs/python.md, \"MPI and "
            "mpi4py\")." % OPENMPI_BUILD)


def _caller_level():
    """warnings.warn's stacklevel of the first frame outside the package
    (dri.Session() reaches the check through dri.init)."""
    here = os.path.dirname(os.path.abspath(__file__))
    level, frame = 1, sys._getframe(2)
    while frame is not None and \
            os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
        frame, level = frame.f_back, level + 1
    return level + 1


def warn_if_foreign_mpi4py(ours):
    """Called by the extension at the first use of a communicator after
    mpi4py.MPI appeared: warns once when mpi4py runs on another MPI library
    than `ours` (dri's MPI_Get_library_version)."""
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is None:
        return
    theirs = _version(mpi.Get_library_version())
    if theirs == _version(ours):
        return
    warnings.warn(ForeignMPIWarning(
        "dri runs on \"%s\" but mpi4py.MPI was loaded on \"%s\": two MPI "
        "libraries in one process. mpi4py's MPI.COMM_WORLD has 1 process in "
        "every process, so code built on mpi4py (mpi4py-fft included) "
        "silently computes the whole problem on every rank, and dri refuses "
        "mpi4py's communicators (dri.COMM_WORLD works). %s"
        % (_first_line(ours), _first_line(theirs), _remedy())),
        stacklevel=_caller_level())


def refuse_foreign_mpi4py():
    """mpi4py.MPI imported before dri and built on another MPI library has
    put that library's MPI_* symbols first in the process: dri's calls would
    reach it with its own MPI's handles and crash. Refuse to load."""
    if mpi4py_compatible() is False:
        theirs = _first_line(sys.modules["mpi4py.MPI"].Get_library_version())
        raise ImportError(
            "dri: mpi4py.MPI was imported first and runs on \"%s\" (%s), dri "
            "on %s: two MPI libraries cannot share one process that way (dri "
            "would crash). Import dri (and call dri.init()) before mpi4py.MPI "
            "to use dri beside it, on dri.COMM_WORLD. %s"
            % (theirs, ", ".join(linked_mpi("mpi4py.MPI")),
               ", ".join(linked_mpi("dri._dri") or ["?"]), _remedy()))
