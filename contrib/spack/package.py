# Spack recipe of hrace: copy this directory into a Spack repository as packages/hrace/ (or
# `spack repo create myrepo && cp -r contrib/spack myrepo/packages/hrace`), then
#   spack install hrace ^openmpi        or      spack install hrace ^mpich
# and `spack load hrace` (or `module load hrace` with Spack's module generation, or the
# hrace module files installed in <prefix>/share/modulefiles; docs/install.md).
#
# The CMake invocation is CMAKE_ARGS below plus the MPI compiler wrapper of the chosen MPI:
# tests/tools/test_package.py reads CMAKE_ARGS from this file (Python's ast module) and runs
# that invocation, so what Spack builds is what the tests build and install.

from spack.package import *

# Arguments that do not depend on the spec. HRACE_TESTS=OFF: the suite needs a whole build tree
# with Open MPI and MPICH side by side; HRACE_MPICH=OFF: one MPI per Spack spec.
CMAKE_ARGS = [
    "-DHRACE_TESTS=OFF",
    "-DHRACE_MPICH=OFF",
    "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
]


class Hrace(CMakePackage):
    """Data race detector for MPI + OpenMP programs that use MPI one-sided communication
    (RMA): a PMPI layer, an OMPT tool and a ThreadSanitizer-ABI load/store runtime in one
    library, compiler wrappers (hrace-cc, hrace-cxx, hrace-fort) and a launcher (hrace run)."""

    homepage = "https://example.org/hrace"
    git = "https://example.org/hrace.git"

    maintainers("hrace-developers")
    license("UNKNOWN")

    version("main", branch="main")

    # libhrace is MPI-ABI specific: one installation per MPI. The provider is the `^mpi` of
    # the spec (openmpi, mpich, or another that uses their ABI).
    # gcc-built OpenMP programs run on LLVM's libomp (it implements gcc's GOMP ABI and has
    # OMPT, libgomp has not): +openmp points hrace-cc / hrace-fort at Spack's llvm-openmp.
    variant("openmp", default=True,
            description="gcc OpenMP programs link Spack's llvm-openmp (HRACE_OMP_LIBDIR)")

    depends_on("c", type="build")
    depends_on("cmake@3.20:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("python@3.7:", type=("build", "run"))   # the hrace launcher, stdlib only
    depends_on("mpi")
    depends_on("elfutils")                             # libdw / libelf: symbols of reports
    depends_on("llvm-openmp")                          # omp-tools.h (OMPT) for the build

    conflicts("%msvc")
    conflicts("platform=darwin", msg="hrace interposes glibc and ELF symbols: Linux only")

    def cmake_args(self):
        args = list(CMAKE_ARGS)
        args.append(self.define("MPI_C_COMPILER", self.spec["mpi"].mpicc))
        mpiexec = join_path(self.spec["mpi"].prefix.bin, "mpiexec")
        args.append(self.define("HRACE_MPIEXEC", mpiexec))
        args.append(self.define("HRACE_OMPT_HEADER",
                                join_path(self.spec["llvm-openmp"].prefix.include,
                                          "omp-tools.h")))
        return args

    def setup_run_environment(self, env):
        # hrace-cc and hrace-fort with gcc link LLVM's libomp from this directory.
        if self.spec.satisfies("+openmp"):
            env.set("HRACE_OMP_LIBDIR", self.spec["llvm-openmp"].prefix.lib)
