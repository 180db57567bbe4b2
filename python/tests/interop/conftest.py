"""The interop tests' mpi4py: imported by the tests that ask for it (not at
collection: test_mpi4py.py checks that detection does not import it), and
only when it runs on dri's MPI library; those tests skip otherwise."""

import pytest

import dri


@pytest.fixture
def MPI():
    if not dri.mpi4py_compatible():
        pytest.skip("mpi4py runs on another MPI library than dri")
    from mpi4py import MPI
    return MPI
