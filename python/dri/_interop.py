"""mpi4py interop: which MPI library an extension module links, read from
its file (the sonames it names) without importing it: importing mpi4py.MPI
initializes its MPI library inside this process."""

import importlib.util
import re

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


def refuse_foreign_mpi4py():
    """mpi4py.MPI imported before dri and built on another MPI library has
    put that library's MPI_* symbols first in the process: dri's calls would
    reach it with its own MPI's handles and crash. Refuse to load."""
    if mpi4py_compatible() is False:
        raise ImportError(
            "dri: mpi4py.MPI was imported first and runs on %s, dri on %s: "
            "two MPI libraries cannot share one process that way. Import dri "
            "(and call dri.init()) before mpi4py.MPI, or build dri on "
            "mpi4py's MPI (docs/python.md)."
            % (", ".join(linked_mpi("mpi4py.MPI")),
               ", ".join(linked_mpi("dri._dri") or ["?"])))
