#!/usr/bin/env python3
"""TAP: both MPI flavours of hrace installed side by side into one prefix (docs/mpi.md,
"Installing both flavours"). Each build tree given is installed with `cmake --install TREE
--prefix P`, in order (Open MPI's first, so that MPICH's install must not clobber it); then,
for each flavour, its installed tools (bin/hrace-cc, or bin/hrace-cc.mpich for the MPICH
flavour) must name its MPI (`--hrace-version`), and build a racy RMA program in C and one in
Fortran (`use mpi_f08`) that link its own libhrace and its own MPI, which the installed
`hrace run` reports under that MPI's launcher (exit 66, the racing lines). Trees that were
not built are skipped.

usage: test_install.py --cmake CMAKE TREE..."""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hrace_build  # noqa: E402

C_SRC = r"""#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  int rank, *x, v = 42, s = 0;
  MPI_Win win;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &x, &win);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
    MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
    MPI_Win_unlock(1, win);
  } else {
    s = *x;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d\n", rank, s);
  MPI_Win_free(&win);
  MPI_Finalize();
  return 0;
}
"""
C_LINES = {11, 14}
F_SRC = """program f08race
  use mpi_f08
  implicit none
  integer, save :: a(4)
  integer :: rank, v, s
  type(MPI_Win) :: win
  integer(kind=MPI_ADDRESS_KIND) :: disp, sz
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  a = 0
  v = 7
  s = 0
  sz = 16
  disp = 1
  call MPI_Win_create(a, sz, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  if (rank == 0) call MPI_Put(v, 1, MPI_INTEGER, 1, disp, 1, MPI_INTEGER, win)
  if (rank == 1) s = a(2)
  call MPI_Win_fence(0, win)
  if (rank == 1) print *, s
  call MPI_Win_free(win)
  call MPI_Finalize()
end program
"""
F_LINES = {17, 18}
MPI_LIB = {"openmpi": "libmpi.so", "mpich": "libmpich.so"}


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, good, what, detail=""):
        self.n += 1
        self.failed += not good
        print(f"{'ok' if good else 'not ok'} {self.n} - {what}")
        if not good and detail:
            print("# " + str(detail).rstrip().replace("\n", "\n# "))
        return good

    def skip(self, what, why):
        self.n += 1
        print(f"ok {self.n} - {what} # SKIP {why}")


def cache_value(tree, key):
    try:
        with open(os.path.join(tree, "CMakeCache.txt")) as f:
            for line in f:
                m = re.match(rf"{key}:[A-Z]+=(.*)$", line.rstrip("\n"))
                if m:
                    return m.group(1)
    except OSError:
        pass
    return ""


def racing_lines(path):
    lines = set()
    if os.path.exists(path):
        for text in open(path):
            rec = json.loads(text)
            if rec.get("type") == "race":
                lines |= {rec["a"].get("line"), rec["b"].get("line")}
    return lines


def check_flavour(tap, prefix, tree, work):
    info = hrace_build.build_info(tree)
    mpi, flavour = info["mpi"], cache_value(tree, "HRACE_FLAVOUR")
    name = hrace_build.NAMES.get(mpi, mpi)
    suffix = "." + flavour if flavour else ""
    libdir = os.path.join(prefix, "lib", "hrace", flavour, "lib") if flavour else \
        os.path.join(prefix, "lib")
    tag = f"{name} (bin/hrace*{suffix})"
    env = hrace_build.launcher_env()
    for var in ("HRACE_MPICC", "HRACE_MPICXX", "HRACE_MPIFORT"):   # the defaults are the subject
        env.pop(var, None)
    installed = hrace_build.read(libdir)
    tap.ok(installed is not None and installed["mpi"] == mpi and
           installed["mpicc"] == info["mpicc"],
           f"{tag}: libhrace.build installed beside its library in {libdir}", installed)
    installed = installed or info
    for tool in ("hrace-cc", "hrace-cxx", "hrace-fort"):
        r = subprocess.run([os.path.join(prefix, "bin", tool + suffix), "--hrace-version"],
                           capture_output=True, text=True, env=env)
        first = (r.stdout.splitlines() or [""])[0]
        want = f"for {name} {info['mpi_version']}"
        tap.ok(r.returncode == 0 and want in first and
               os.path.join(libdir, "libhrace.so") in r.stdout,
               f"{tag}: {tool}{suffix} --hrace-version names {name}: {first!r}",
               r.stdout + r.stderr)
    for lang, src, tool, want_lines in (("c", C_SRC, "hrace-cc", C_LINES),
                                        ("f90", F_SRC, "hrace-fort", F_LINES)):
        base = os.path.join(work, f"{mpi}_{lang}")
        with open(base + "." + lang, "w") as f:
            f.write(src)
        r = subprocess.run([os.path.join(prefix, "bin", tool + suffix), "-O1", "-o", base,
                            base + "." + lang], capture_output=True, text=True, env=env)
        if not tap.ok(r.returncode == 0, f"{tag}: {tool}{suffix} builds a racy {lang} program",
                      r.stdout + r.stderr):
            tap.skip(f"{tag}: links", "not built")
            tap.skip(f"{tag}: run", "not built")
            continue
        ldd = subprocess.run(["ldd", base], capture_output=True, text=True).stdout
        loaded = set(re.findall(r"^\s*(\S+?\.so)\.\S* =>", ldd, re.M))
        others = {lib for m, lib in MPI_LIB.items() if m != mpi}
        tap.ok(f"libhrace.so => {os.path.join(libdir, 'libhrace.so')} " in ldd and
               MPI_LIB[mpi] in loaded and not loaded & others,
               f"{tag}: the {lang} program loads {libdir}/libhrace.so and {MPI_LIB[mpi]} "
               f"only", ldd)
        js = base + ".jsonl"
        cmd = [os.path.join(prefix, "bin", "hrace" + suffix), "run", "--json", js, "--",
               installed["mpiexec"], "-np", "2", base]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60, cwd=work)
            status, err = r.returncode, r.stderr
        except subprocess.TimeoutExpired as e:
            status, err = "timeout", str(e.stderr)
        lines = racing_lines(js)
        tap.ok(status == 66 and lines == want_lines,
               f"{tag}: hrace{suffix} run -- {os.path.basename(installed['mpiexec'])}: exit "
               f"{status} (66), racing lines {sorted(lines)} ({sorted(want_lines)})",
               " ".join(cmd) + "\n" + err)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("trees", nargs="+")
    opts = ap.parse_args()
    trees = [os.path.abspath(t) for t in opts.trees]
    per_tree = 1 + 3 + 2 * 3
    print(f"1..{len(trees) * (1 + per_tree) + 1}")
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="hrace-install-") as tmp:
        prefix = os.path.join(tmp, "prefix")
        work = os.path.join(tmp, "work")
        os.makedirs(work)
        present = []
        for tree in trees:
            if not os.path.isfile(os.path.join(tree, "lib", "libhrace.so")):
                tap.skip(f"install {tree}", "not built")
                continue
            r = subprocess.run([opts.cmake, "--install", tree, "--prefix", prefix],
                               capture_output=True, text=True)
            if tap.ok(r.returncode == 0, f"cmake --install {tree} --prefix P",
                      r.stdout + r.stderr):
                present.append(tree)
        # Nothing of one flavour's tree may be a path of another's.
        flavours = [cache_value(t, "HRACE_FLAVOUR") for t in present]
        tap.ok(len(set(flavours)) == len(flavours),
               f"the installed flavours are distinct: {flavours}")
        for tree in trees:
            if tree in present:
                check_flavour(tap, prefix, tree, work)
            else:
                for _ in range(per_tree):
                    tap.skip(f"flavour of {tree}", "not installed")
    return 1 if tap.failed else 0


if __name__ == "__main__":
    sys.exit(main())
