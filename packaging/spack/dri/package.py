# Spack recipe for dri; docs/install.md ("Spack") says how it is used and
# how it was verified (Spack 0.21.2, Debian 12's GCC, MPICH, CMake and Python
# as externals).

import os

import spack
from spack.package import *


class Dri(CMakePackage):
    """dri implements the DARPA Data Reorganization Interface (DRI) over MPI:
    describe a global multi-dimensional array, how it is partitioned over
    processes and how each process stores its block; dri plans the
    redistribution (a radar corner turn, the transpose of a two-stage
    parallel FFT, a pencil reshape) once and executes it as often as needed.
    C and C++ bindings, a Python module over NumPy arrays, and the tools
    dri-bench and dri-plan."""

    # dri has no public download location yet: Spack builds it from a clone
    # of its repository (`spack develop --path <clone> dri@=1.0.0`), or from
    # a release archive placed in a Spack mirror.
    version("1.0.0")

    variant("shared", default=True, description="Build libdri as a shared library")
    variant("python", default=True, description="The Python module dri (pybind11, NumPy)")
    variant("tools", default=True, description="The tools dri-bench and dri-plan")
    variant("examples", default=False, description="Build the examples (not installed)")
    variant(
        "fftw",
        default=True,
        when="+examples",
        description="The FFTW examples two_stage_fft and radar_pipeline",
    )

    # Any MPI library: MPICH (MPI-4: large-count calls) or Open MPI (MPI-3
    # code paths); dri uses its C API only.
    depends_on("mpi")
    depends_on("cmake@3.25:", type="build")
    # Spack 0.23 and later model the compilers as dependencies.
    if spack.spack_version_info >= (0, 23):
        depends_on("c", type="build")
        depends_on("cxx", type="build")

    extends("python", when="+python")
    depends_on("python@3.8:", when="+python", type=("build", "link", "run"))
    depends_on("py-pybind11@2.6:", when="+python", type=("build", "link"))
    depends_on("py-numpy", when="+python", type=("build", "run"))

    depends_on("cli11", when="+tools", type="build")
    depends_on("nlohmann-json", when="+tools", type="build")

    depends_on("fftw@3:", when="+fftw")

    conflicts("%gcc@:10", msg="dri needs C++20 (GCC 11 or later)")

    # cmake/DriOptional.cmake's optional components that no variant provides:
    # hidden, so that the build does not pick up what the system happens to
    # have (ScaLAPACK, mpi4py, a second MPI, documentation tools...).
    never = ["ScaLAPACK", "mpi4py", "mpi4py-fft", "OpenMPI", "Doxygen", "clang-format",
             "gnuplot", "hpcc", "pytest"]

    def cmake_args(self):
        spec = self.spec
        mpi = spec["mpi"]
        hidden = list(self.never)
        if "+fftw" not in spec:
            hidden.append("FFTW")
        if "+python" not in spec:
            hidden += ["Python", "NumPy"]
        args = [
            # dri looks for MPICH's wrappers by name (mpicc.mpich) unless told
            # which MPI to use: always the spec's.
            self.define("MPI_C_COMPILER", mpi.mpicc),
            self.define("MPI_CXX_COMPILER", mpi.mpicxx),
            self.define("MPIEXEC_EXECUTABLE", join_path(mpi.prefix.bin, "mpiexec")),
            self.define_from_variant("BUILD_SHARED_LIBS", "shared"),
            self.define("DRI_BUILD_TESTS", False),
            self.define_from_variant("DRI_BUILD_EXAMPLES", "examples"),
            self.define_from_variant("DRI_BUILD_TOOLS", "tools"),
            self.define_from_variant("DRI_BUILD_BENCH", "tools"),
            self.define_from_variant("DRI_BUILD_PYTHON", "python"),
            self.define("DRI_WITHOUT", hidden),
        ]
        if "+python" in spec:
            python = spec["python"]
            args += [
                self.define("Python3_EXECUTABLE", python.command.path),
                # Where Spack's python looks for its extensions in this prefix.
                self.define("DRI_PYTHON_INSTALL_DIR", python.package.platlib),
            ]
        return args

    @run_after("install")
    @on_package_attributes(run_tests=True)
    def check_installation(self):
        """`spack install --test=root`: the installed dri-plan and Python
        module run and report this version."""
        version = str(self.spec.version)
        if "+tools" in self.spec:
            out = Executable(join_path(self.prefix.bin, "dri-plan"))("--version", output=str)
            if out.strip() != "dri-plan (dri) " + version:
                raise InstallError("dri-plan --version printed " + out)
        if "+python" in self.spec:
            python = Executable(self.spec["python"].command.path)
            out = python(
                "-c",
                "import dri; print(dri.__version__)",
                output=str,
                extra_env={"PYTHONPATH": join_path(self.prefix, self.spec["python"].package.platlib)},
            )
            if out.strip() != version:
                raise InstallError("dri.__version__ is " + out)
