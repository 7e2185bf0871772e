#!/usr/bin/env python3
"""Write hrace(1) in roff from the launcher's own help: `hrace --help`, `hrace run --help`,
`hrace merge --help` and `hrace version --help`, so the man page lists exactly the options the
launcher accepts (tests/tools/test_package.py checks it).

usage: gen_manpage.py HRACE OUT.1 VERSION"""

import re
import subprocess
import sys
import time


def roff(text):
    text = text.replace("\\", "\\e")
    return "\n".join(("\\&" + l if l[:1] in (".", "'") else l) for l in text.split("\n"))


def help_of(hrace, *args):
    r = subprocess.run([sys.executable, hrace, *args, "--help"], capture_output=True, text=True,
                       env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"})
    if r.returncode != 0:
        sys.exit(f"gen_manpage: {hrace} {' '.join(args)} --help failed: {r.stderr}")
    return r.stdout


def section(title, text):
    """A help text: its first `usage:` line as a synopsis, the rest verbatim (.nf)."""
    return f".SS {title}\n.nf\n{roff(text.rstrip())}\n.fi\n"


def main():
    hrace, out, version = sys.argv[1:4]
    date = time.strftime("%Y-%m-%d", time.gmtime(int(__import__("os").environ.get(
        "SOURCE_DATE_EPOCH", time.time()))))
    top = help_of(hrace)
    page = [f'.TH HRACE 1 "{date}" "hrace {version}" "User Commands"',
            ".SH NAME",
            "hrace \\- run an MPI + OpenMP job under the hrace data race detector",
            ".SH SYNOPSIS",
            ".B hrace run\n[\\fIOPTIONS\\fR] \\fB\\-\\-\\fR \\fICMD\\fR...",
            ".br\n.B hrace merge\n[\\fIOPTIONS\\fR] \\fIDIR\\fR",
            ".br\n.B hrace version",
            ".SH DESCRIPTION",
            ".nf\n" + roff(top.split("\n", 1)[1].strip()) + "\n.fi",
            ".SH COMMANDS"]
    for cmd in ("run", "merge", "version"):
        page.append(section(f"hrace {cmd}", help_of(hrace, cmd)))
    page += [".SH SEE ALSO",
             "hrace-cc (bin/hrace-cc: a drop-in for mpicc), hrace-cxx, hrace-fort;",
             "the documentation in share/doc/hrace (README.md, docs/report-format.md,",
             "docs/install.md)."]
    with open(out, "w") as f:
        f.write("\n".join(page) + "\n")


if __name__ == "__main__":
    main()
