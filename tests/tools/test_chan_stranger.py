#!/usr/bin/env python3
"""TAP: a stranger that connects to a rank's hrace socket (core/chan.c) and sends garbage is
turned away with a warning, and the job's own traffic goes on. usage: test_chan_stranger.py
BUILD_DIR"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hrace_build  # noqa: E402

build = os.path.abspath(sys.argv[1])
info = hrace_build.build_info(build)   # the build's MPI: its mpicc and launcher
here = os.path.dirname(os.path.abspath(__file__))
work = tempfile.mkdtemp(prefix="hrace-stranger-")
exe = os.path.join(work, "chan_stranger")
subprocess.run([info["mpicc"], "-o", exe, os.path.join(here, "chan_stranger.c")], check=True)
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           HRACE_OPTIONS="report_text=0")
p = subprocess.Popen(hrace_build.launch(info, (2, {"LD_PRELOAD": os.path.join(build, "lib", "libhrace.so"),
                                                   "HRACE_OPTIONS": "report_text=0"}, [exe])),
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     env=env, text=True, start_new_session=True)
p.stdout.readline()   # "ready": both ranks listen
names = []
with open("/proc/net/unix") as f:
    for line in f:
        path = line.split()[-1] if len(line.split()) >= 8 else ""
        if not path.startswith("@hrace.") or path in names:
            continue
        try:   # only this job's ranks (other tests may run at the same time)
            mine = os.readlink(f"/proc/{path.split('.')[1]}/exe") == exe
        except OSError:
            mine = False
        if mine:
            names.append(path)
sent = 0
for name in names:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect("\0" + name[1:])
        s.sendall(b"\x68\x63\x72\x68" + b"\xff" * 60)   # right magic, wrong cookie
        sent += 1
    except OSError:
        pass
    s.close()
try:
    out, err = p.communicate(timeout=60)
except subprocess.TimeoutExpired:
    os.killpg(p.pid, 9)
    out, err = p.communicate()
shutil.rmtree(work, ignore_errors=True)
checks = [
    (sent >= 2, f"connected to the ranks' sockets ({sent} of {len(names)})"),
    ("did not come from this job" in err, "the stranger is turned away with a warning"),
    (p.returncode == 0, f"the job finishes (exit {p.returncode})"),
    ("got 7" in out, "the job's own put still arrives"),
]
print(f"1..{len(checks)}")
bad = 0
for i, (good, what) in enumerate(checks, 1):
    print(f"{'ok' if good else 'not ok'} {i} - {what}")
    bad += not good
if bad:
    print("# stderr:\n" + "\n".join("#   " + l for l in err.splitlines()[-20:]))
sys.exit(1 if bad else 0)
