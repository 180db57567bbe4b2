"""Every test runs inside one dri.Session on every rank of COMM_WORLD. Tests
call collectives in the same order on every rank, and an error test raises on
every rank (a rank raising alone would leave the others in a collective)."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

import dri  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def session():
    with dri.Session():
        yield


@pytest.fixture
def comm():
    return dri.COMM_WORLD
