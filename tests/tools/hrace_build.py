"""What a build tree of hrace was built for: <build>/lib/libhrace.build, key=value lines written
by CMake (the MPI, its version, its compiler wrappers and launcher; docs/mpi.md). The tools
tests use it so that an MPICH build tree runs its own suite with MPICH's mpicc and mpirun."""

import os

DEFAULTS = {"mpi": "openmpi", "mpi_version": "", "mpicc": "mpicc", "mpicxx": "mpicxx",
            "mpifort": "mpifort", "mpiexec": "mpirun"}
NAMES = {"openmpi": "Open MPI", "mpich": "MPICH"}


def read(lib_dir):
    """The key=value pairs of LIB_DIR/libhrace.build, over DEFAULTS (None if there is none)."""
    path = os.path.join(lib_dir, "libhrace.build")
    if not os.path.isfile(path):
        return None
    info = dict(DEFAULTS)
    with open(path) as f:
        for line in f:
            key, sep, value = line.rstrip("\n").partition("=")
            if sep:
                info[key] = value
    return info


def build_info(build_dir):
    """The build tree's info, or DEFAULTS (an Open MPI build) for a tree without the file."""
    return read(os.path.join(build_dir, "lib")) or dict(DEFAULTS)


def launcher_env(env=None):
    """The environment for a job of either MPI on this machine (Open MPI refuses root and
    more ranks than cores without these; MPICH ignores them)."""
    env = dict(os.environ if env is None else env)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return env


def launch(info, *segments):
    """The launcher command of INFO's MPI for one job of SEGMENTS, each (nprocs, {NAME: VALUE}
    for those ranks, argv); several segments make an MPMD launch. Open MPI: `-np N -x NAME=VALUE
    argv`; MPICH's hydra: `-n N -env NAME VALUE argv`; segments joined by `:`."""
    cmd = [info["mpiexec"]]
    for i, (n, env, argv) in enumerate(segments):
        if i:
            cmd.append(":")
        if info["mpi"] == "mpich":
            cmd += ["-n", str(n)]
            for k, v in env.items():
                cmd += ["-env", k, v]
        else:
            cmd += ["-np", str(n)]
            for k, v in env.items():
                cmd += ["-x", f"{k}={v}"]
        cmd += list(argv)
    return cmd
