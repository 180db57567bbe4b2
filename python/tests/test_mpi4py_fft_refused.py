"""dri.mpi4py_fft.install() on a dri built on another MPI library than
mpi4py (the default MPICH build beside Debian's Open MPI mpi4py): refused
with dri.Error (ERR_MPI) naming both libraries, before mpi4py.MPI is
imported (importing it would start a second MPI library here), and nothing
is installed."""

import sys

import pytest

import dri
import dri.mpi4py_fft as dmf
from dri import _interop


def test_install_names_both_libraries_and_changes_nothing():
    if dri.mpi4py_compatible() is not False:
        pytest.skip("mpi4py is absent or on dri's MPI library (see interop/)")
    with pytest.raises(dri.Error) as e:
        dmf.install()
    assert e.value.code == dri.ERR_MPI
    for soname in _interop.linked_mpi("mpi4py.MPI") + _interop.linked_mpi("dri._dri"):
        assert soname in str(e.value)
    assert "mpi4py.MPI" not in sys.modules
    assert not dmf.installed() and not dri.shared_arrays_enabled()
    dmf.uninstall()  # nothing to undo: still fine
