#!/usr/bin/env python3
"""TAP: hrace installs the way HPC projects expect (docs/install.md).

 - `cmake --install BUILD --prefix P`: share/doc, man1/hrace.1 listing every option of
   `hrace run --help`, lib/cmake/hrace/hraceConfig{,Version}.cmake, lib/pkgconfig/hrace.pc,
   share/modulefiles/hrace/VERSION{,.lua};
 - the tree moved to another prefix still works: `hrace version`, a racy RMA program built
   with the moved hrace-cc and run under the moved `hrace run` (exit 66);
 - `pkg-config --cflags --libs hrace` against the moved tree;
 - examples/cmake-project configured with -Dhrace_DIR (moved tree) and with CMAKE_PREFIX_PATH,
   built, and its ctest: put_fenced passes, put_racy fails with hrace's report;
 - hrace_instrument() of a gcc OpenMP target links LLVM's libomp, and its race is found;
 - the module files name the moved tree (tclsh reads the Tcl one when it is there);
 - the Spack recipe's CMake invocation (CMAKE_ARGS of contrib/spack/package.py, read with ast,
   plus the MPI wrapper it adds) configures, builds and installs hrace from the sources.

usage: test_package.py --cmake CMAKE BUILD"""

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import hrace_build  # noqa: E402

RACY = os.path.join(TOP, "examples", "racy_put.c")


class Tap:
    def __init__(self):
        self.n = self.failed = 0

    def ok(self, good, what, detail=""):
        self.n += 1
        self.failed += not good
        print(f"{'ok' if good else 'not ok'} {self.n} - {what}", flush=True)
        if not good and detail:
            print("# " + str(detail).rstrip()[-3000:].replace("\n", "\n# "), flush=True)
        return good

    def skip(self, what, why):
        self.n += 1
        print(f"ok {self.n} - {what} # SKIP {why}", flush=True)


def run(cmd, **kw):
    kw.setdefault("timeout", 600)
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, **kw)
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        return "timeout", f"{cmd}: timed out\n{e.stdout or ''}{e.stderr or ''}"


def run_options(hrace):
    """Every option `hrace run --help` shows (long and short)."""
    _, out = run([sys.executable, hrace, "run", "--help"])
    return sorted(set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", out.split("options:", 1)[-1]))
                  - {"--"})


def check_tree(tap, prefix, version):
    want = ["bin/hrace", "bin/hrace-cc", "lib/libhrace.so", "lib/libhrace.build",
            "include/hrace.h", "share/doc/hrace/README.md", "share/doc/hrace/docs/install.md",
            "share/doc/hrace/docs/report-format.md", "share/man/man1/hrace.1",
            "lib/cmake/hrace/hraceConfig.cmake", "lib/cmake/hrace/hraceConfigVersion.cmake",
            "lib/pkgconfig/hrace.pc", f"share/modulefiles/hrace/{version}.lua",
            f"share/modulefiles/hrace/{version}"]
    missing = [w for w in want if not os.path.isfile(os.path.join(prefix, w))]
    tap.ok(not missing, "the install tree has docs, man page, CMake package, pkg-config file "
           "and module files", f"missing: {missing}")
    man = open(os.path.join(prefix, "share/man/man1/hrace.1"), errors="replace").read() \
        if "share/man/man1/hrace.1" not in missing else ""
    text = man.replace("\\-", "-").replace("\\e", "\\")
    opts = run_options(os.path.join(prefix, "bin", "hrace"))
    absent = [o for o in opts if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text)]
    tap.ok(man.startswith(".TH HRACE 1") and len(opts) > 10 and not absent,
           f"hrace.1 lists all {len(opts)} options of `hrace run --help`",
           f"not in the man page: {absent}")
    if shutil.which("man"):
        code, out = run(["man", "-l", "-P", "cat", os.path.join(prefix, "share/man/man1/hrace.1")],
                        env=dict(os.environ, MANWIDTH="80"))
        tap.ok(code == 0 and "hrace run" in out and "--junit" in out.replace("‐", "-"),
               "man -l renders hrace.1", out[-2000:])
    else:
        tap.skip("man -l renders hrace.1", "no man command")


def check_moved(tap, prefix, work, info):
    env = hrace_build.launcher_env()
    for var in ("HRACE_MPICC", "HRACE_MPICXX", "HRACE_MPIFORT", "LD_LIBRARY_PATH"):
        env.pop(var, None)
    code, out = run([os.path.join(prefix, "bin", "hrace"), "version"], env=env)
    lib = os.path.join(prefix, "lib", "libhrace.so")
    tap.ok(code == 0 and f"library: {lib}\n" in out and "not found" not in out and
           "MPI: " in out and re.search(r"^git: \S+", out, re.M),
           f"moved tree: hrace version finds {lib} and names the build", out)
    exe = os.path.join(work, "racy_put")
    code, out = run([os.path.join(prefix, "bin", "hrace-cc"), "-O1", "-o", exe, RACY], env=env)
    if tap.ok(code == 0, "moved tree: hrace-cc builds examples/racy_put.c", out):
        code, ldd = run(["ldd", exe])
        tap.ok(f"libhrace.so => {lib} " in ldd, "moved tree: the program links the moved "
               "libhrace.so", ldd)
        code, out = run([os.path.join(prefix, "bin", "hrace"), "run", "--", info["mpiexec"],
                         "-np", "2", exe], env=env, cwd=work, timeout=120)
        tap.ok(code == 66 and "WARNING: data race" in out,
               f"moved tree: hrace run -- {os.path.basename(info['mpiexec'])} -np 2 racy_put: "
               f"exit {code} (66)", out)
    else:
        tap.skip("moved tree: links", "not built")
        tap.skip("moved tree: run", "not built")
    pc = shutil.which("pkg-config")
    if pc:
        code, out = run([pc, "--cflags", "--libs", "hrace"],
                        env=dict(env, PKG_CONFIG_PATH=os.path.join(prefix, "lib", "pkgconfig")))
        flags = out.split()
        norm = [re.sub(r"^(-I|-L|-Wl,-rpath,)(.*)$",
                       lambda m: m.group(1) + os.path.normpath(m.group(2)), f) for f in flags]
        tap.ok(code == 0 and f"-I{prefix}/include" in norm and f"-L{prefix}/lib" in norm and
               "-lhrace" in norm and f"-Wl,-rpath,{prefix}/lib" in norm,
               "moved tree: pkg-config --cflags --libs hrace names the moved prefix", out)
    else:
        tap.skip("pkg-config --cflags --libs hrace", "no pkg-config")


def check_modules(tap, prefix, version):
    lua = open(os.path.join(prefix, f"share/modulefiles/hrace/{version}.lua")).read()
    tap.ok("@" not in re.sub(r"--.*", "", lua) and 'prepend_path("PATH", pathJoin(root, "bin"))'
           in lua and "myFileName()" in lua, "the Lmod module is configured (no @VAR@ left) "
           "and finds its prefix from its own path", lua)
    tcl_path = os.path.join(prefix, f"share/modulefiles/hrace/{version}")
    tclsh = shutil.which("tclsh")
    if not tclsh:
        tap.skip("the Tcl module sets PATH to the moved prefix", "no tclsh")
        return
    # Evaluate the module with stand-ins for Environment Modules' commands.
    script = ("proc setenv {n v} {puts \"setenv $n $v\"}\n"
              "proc prepend-path {n v} {puts \"prepend $n $v\"}\n"
              "proc module-whatis {args} {}\n"
              f"set ModulesCurrentModulefile {{{tcl_path}}}\n"
              f"source {{{tcl_path}}}\n")
    code, out = run([tclsh], input=script)
    tap.ok(code == 0 and f"prepend PATH {prefix}/bin\n" in out and
           f"setenv HRACE_ROOT {prefix}\n" in out and
           f"prepend CMAKE_PREFIX_PATH {prefix}\n" in out,
           "the Tcl module sets PATH, HRACE_ROOT and CMAKE_PREFIX_PATH to the moved prefix", out)


def check_sample(tap, cmake, prefix, work, how, flavour="", mpicc=None):
    """The sample against the (moved) install; FLAVOUR: a flavoured tree (MPICH's) installed
    beside the default one, found with -Dhrace_DIR in lib/hrace/FLAVOUR, built with MPICC."""
    src = os.path.join(TOP, "examples", "cmake-project")
    bld = os.path.join(work, "sample-" + how + flavour)
    libdir = f"{prefix}/lib/hrace/{flavour}/lib" if flavour else f"{prefix}/lib"
    arg = (f"-Dhrace_DIR={libdir}/cmake/hrace" if how == "hrace_DIR" else
           f"-DCMAKE_PREFIX_PATH={prefix}")
    extra = [f"-DMPI_C_COMPILER={mpicc}"] if mpicc else []
    how = f"{how} ({flavour})" if flavour else how
    env = dict(os.environ)
    for var in ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"):
        env.pop(var, None)   # hrace_add_test must set them itself when run as root
    code, out = run([cmake, "-S", src, "-B", bld, arg] + extra, env=env)
    if not tap.ok(code == 0, f"examples/cmake-project configures with {arg}", out):
        for _ in range(3):
            tap.skip("sample", "not configured")
        return
    code, out = run([cmake, "--build", bld, "-v"], env=env)
    link = [l for l in out.splitlines() if " -o put_racy " in l and ".o " in l.split(" -o ")[0]
            or re.search(r"-o put_racy\s", l) and "libhrace.so" in l]
    compile_ = [l for l in out.splitlines() if "put_racy.c" in l and " -c " in l]
    tap.ok(code == 0 and compile_ and "-fsanitize=thread" in compile_[0] and
           link and "libhrace.so" in link[-1] and "-fsanitize=thread" not in link[-1],
           f"{how}: the sample builds, -fsanitize=thread at compile time only, libhrace linked",
           out)
    ctest = os.path.join(os.path.dirname(cmake), "ctest")
    ctest = ctest if os.path.exists(ctest) else "ctest"
    code, out = run([ctest, "--test-dir", bld, "--output-on-failure", "--timeout", "120"],
                    env=env, timeout=400)
    passed = re.search(r"put_fenced \.+\s+Passed", out)
    failed = re.search(r"put_racy \.+\*+Failed", out)
    tap.ok(code != 0 and passed and failed,
           f"{how}: ctest: put_fenced passes, put_racy fails", out)
    tap.ok(re.search(r"WARNING: data race \(remote\)", out) and "put_racy.c:14" in out and
           "put_racy.c:17" in out, f"{how}: put_racy's failure shows hrace's report "
           "(put_racy.c:14 and :17)", out)


OMP_CMAKE = """cmake_minimum_required(VERSION 3.20)
project(omp_sample LANGUAGES C)
find_package(MPI REQUIRED COMPONENTS C)
find_package(OpenMP REQUIRED COMPONENTS C)
find_package(hrace CONFIG REQUIRED)
enable_testing()
add_executable(omp_race omp_race.c)
target_link_libraries(omp_race PRIVATE MPI::MPI_C OpenMP::OpenMP_C)
hrace_instrument(omp_race)
hrace_add_test(NAME omp_race COMMAND omp_race NP 2)
"""
OMP_SRC = """#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int *x;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  *x = 0;
  MPI_Win_fence(0, win);
#pragma omp parallel num_threads(2)
  x[0]++;
  MPI_Win_fence(0, win);
  printf("%d\\n", *x);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
"""


def check_openmp_gcc(tap, cmake, prefix, work):
    """hrace_instrument() of a gcc OpenMP target links LLVM's libomp (OMPT), as hrace-cc does."""
    what = "hrace_instrument: a gcc OpenMP target runs on LLVM's libomp; its thread race fails"
    if not shutil.which("gcc") or not [d for d in os.listdir("/usr/lib") if d.startswith("llvm-")
                                       and os.path.isfile(f"/usr/lib/{d}/lib/libomp.so")]:
        tap.skip(what, "no gcc or no LLVM libomp")
        return
    src, bld = os.path.join(work, "omp-src"), os.path.join(work, "omp-build")
    os.makedirs(src)
    for name, text in (("CMakeLists.txt", OMP_CMAKE), ("omp_race.c", OMP_SRC)):
        with open(os.path.join(src, name), "w") as f:
            f.write(text)
    env = dict(os.environ, CC="gcc")
    code, out = run([cmake, "-S", src, "-B", bld, f"-DCMAKE_PREFIX_PATH={prefix}"], env=env)
    if code == 0:
        code, more = run([cmake, "--build", bld], env=env)
        out += more
    ldd = run(["ldd", os.path.join(bld, "omp_race")])[1] if code == 0 else ""
    if code == 0:
        ctest = os.path.join(os.path.dirname(cmake), "ctest")
        code, more = run([ctest if os.path.exists(ctest) else "ctest", "--test-dir", bld,
                          "--output-on-failure", "--timeout", "120"], env=env, timeout=300)
        out += more
    tap.ok(re.search(r"libomp\.so\S* => /usr/lib/llvm-", ldd) and code != 0 and
           "WARNING: data race (thread)" in out and "omp_race.c:11" in out, what, ldd + out)


def spack_args():
    tree = ast.parse(open(os.path.join(TOP, "contrib", "spack", "package.py")).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "CMAKE_ARGS"
                                                for t in node.targets):
            return ast.literal_eval(node.value)
    return None


def check_spack(tap, cmake, work, info):
    args = spack_args()
    if not tap.ok(isinstance(args, list) and "-DHRACE_TESTS=OFF" in args,
                  "contrib/spack/package.py: CMAKE_ARGS read with ast", args):
        tap.skip("spack configure", "no CMAKE_ARGS")
        tap.skip("spack build", "no CMAKE_ARGS")
        return
    # What cmake_args() adds for the spec: the MPI's own wrapper and launcher.
    args = args + [f"-DMPI_C_COMPILER={info['mpicc']}", f"-DHRACE_MPIEXEC={info['mpiexec']}"]
    bld, prefix = os.path.join(work, "spack-build"), os.path.join(work, "spack-prefix")
    code, out = run([cmake, "-S", TOP, "-B", bld, f"-DCMAKE_INSTALL_PREFIX={prefix}"] + args)
    if not tap.ok(code == 0, "the Spack recipe's cmake invocation configures", out):
        tap.skip("spack build", "not configured")
        return
    code, out = run([cmake, "--build", bld, "-j2"], timeout=1200)
    code2, out2 = (run([cmake, "--install", bld]) if code == 0 else (code, ""))
    code3, ver = (run([os.path.join(prefix, "bin", "hrace"), "version"])
                  if code2 == 0 else (code2, ""))
    tap.ok(code == 0 and code2 == 0 and code3 == 0 and
           os.path.isfile(os.path.join(prefix, "lib", "cmake", "hrace", "hraceConfig.cmake"))
           and not os.path.exists(os.path.join(bld, "tests")),
           "the Spack recipe's invocation builds (without the suite) and installs a working "
           "hrace", out[-2000:] + out2 + ver)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--no-spack", action="store_true", help="skip the Spack recipe's build")
    ap.add_argument("build")
    ap.add_argument("flavoured", nargs="*", help="build trees of other flavours (MPICH's), "
                    "installed into the same prefix; their sample is built and run too")
    opts = ap.parse_args()
    build = os.path.abspath(opts.build)
    info = hrace_build.build_info(build)
    extra = [os.path.abspath(t) for t in opts.flavoured]
    plan = 23 + 5 * len(extra)
    print(f"1..{plan}", flush=True)
    tap = Tap()
    version = "0.1.0"
    m = re.search(r"^version=(.*)$", open(os.path.join(build, "lib", "libhrace.build")).read(),
                  re.M)
    if m:
        version = m.group(1)
    with tempfile.TemporaryDirectory(prefix="hrace-package-") as tmp:
        first, moved, work = (os.path.join(tmp, n) for n in ("first", "moved/to/here", "work"))
        os.makedirs(work)
        code, out = run([opts.cmake, "--install", build, "--prefix", first])
        tap.ok(code == 0, "cmake --install BUILD --prefix P", out)
        flavours = []
        for tree in extra:
            if not os.path.isfile(os.path.join(tree, "lib", "libhrace.so")):
                tap.skip(f"install {tree}", "not built")
                flavours.append(None)
                continue
            code, out = run([opts.cmake, "--install", tree, "--prefix", first])
            cache = open(os.path.join(tree, "CMakeCache.txt")).read()
            m = re.search(r"^HRACE_FLAVOUR:\w+=(.*)$", cache, re.M)
            tap.ok(code == 0 and m and m.group(1), f"cmake --install {tree} --prefix P "
                   f"(flavour {m.group(1) if m else '?'})", out)
            flavours.append((m.group(1), hrace_build.build_info(tree)["mpicc"])
                            if code == 0 and m and m.group(1) else None)
        check_tree(tap, first, version)
        os.makedirs(os.path.dirname(moved))
        os.rename(first, moved)
        check_moved(tap, moved, work, info)
        check_modules(tap, moved, version)
        check_sample(tap, opts.cmake, moved, work, "hrace_DIR")
        check_sample(tap, opts.cmake, moved, work, "CMAKE_PREFIX_PATH")
        check_openmp_gcc(tap, opts.cmake, moved, work)
        for fl in flavours:
            if fl:
                check_sample(tap, opts.cmake, moved, work, "hrace_DIR", fl[0], fl[1])
            else:
                for _ in range(4):
                    tap.skip("flavoured sample", "not installed")
        if opts.no_spack:
            for what in ("CMAKE_ARGS", "configure", "build and install"):
                tap.skip(f"Spack recipe: {what}", "--no-spack")
        else:
            check_spack(tap, opts.cmake, work, info)
    if tap.n != plan:
        print(f"# planned {plan} tests, ran {tap.n}")
        return 1
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
