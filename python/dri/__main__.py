"""Run a Python program under MPI so that one failing process ends the job.

    mpiexec -n 4 python -m dri script.py [args...]
    mpiexec -n 4 python -m dri -m package.module [args...]
    mpiexec -n 4 python -m dri -c "command" [args...]

When an exception escapes the program on one process (or it calls
sys.exit with a failure code), that process prints the traceback and calls
MPI_Abort on MPI_COMM_WORLD, as ``python -m mpi4py`` does: the other
processes, which may be waiting for it inside a collective dri call (a
commit, a reverse, a distribution), end too instead of waiting forever. A
program that ends normally, or with sys.exit(0), exits as it would without
the wrapper. See docs/python.md, "When one process fails".
"""

import os
import runpy
import sys
import time
import traceback

USAGE = ("usage: python -m dri script.py [args...] | -m module [args...] | "
         "-c command [args...]")


def _failure_code(exit_code):
    """The exit status SystemExit(exit_code) asks for, as Python computes
    it: None is 0, an integer is itself, anything else is printed and 1."""
    if exit_code is None:
        return 0
    if isinstance(exit_code, int):
        return exit_code
    print(exit_code, file=sys.stderr)
    return 1


def _abort(code):
    sys.stdout.flush()
    sys.stderr.flush()
    # mpiexec ends every process as soon as one aborts, and may drop what it
    # has not forwarded yet: give it a moment to pass the traceback on.
    time.sleep(0.2)
    from . import _dri
    _dri._mpi_abort(code)
    # Only reached without MPI: then this process is the whole job.
    sys.exit(code)


def _run(argv):
    """Runs the program argv names, with sys.argv as it expects."""
    if argv[0] == "-m":
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    elif argv[0] == "-c":
        sys.argv = ["-c"] + argv[2:]
        exec(compile(argv[1], "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv = argv
        # As `python script.py` would: the script's folder first on the path.
        sys.path[0] = os.path.dirname(os.path.realpath(argv[0]))
        runpy.run_path(argv[0], run_name="__main__")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    if argv[0] in ("-m", "-c") and len(argv) < 2:
        print(USAGE, file=sys.stderr)
        return 2
    try:
        _run(argv)
    except SystemExit as e:
        code = _failure_code(e.code)
        if code != 0:
            _abort(code)
        return 0
    except BaseException:  # KeyboardInterrupt too: the others would wait
        traceback.print_exc()
        _abort(1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
