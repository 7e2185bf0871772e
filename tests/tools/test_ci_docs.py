#!/usr/bin/env python3
"""TAP: the CI snippets of docs/ci.md are usable as written: each YAML block parses (PyYAML),
has the shape its CI system reads (GitHub: jobs with steps, upload-sarif given the file hrace
writes; GitLab: a job with script and a junit report naming the file hrace writes), and every
`hrace` command in them is accepted by hrace's own argument parser.

usage: test_ci_docs.py [--hrace PATH]"""

import importlib.machinery
import importlib.util
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import Tap  # noqa: E402  (tests/tools/tap.py)

T = Tap()
ok = T.ok
HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))



def hrace_commands(node):
    """Every shell line starting with `hrace ` anywhere in a parsed YAML document."""
    if isinstance(node, dict):
        for v in node.values():
            yield from hrace_commands(v)
    elif isinstance(node, list):
        for v in node:
            yield from hrace_commands(v)
    elif isinstance(node, str):
        for line in node.splitlines():
            if line.strip().startswith("hrace "):
                yield line.strip()


def main():
    hrace_path = os.path.join(TOP, "tools", "hrace")
    if sys.argv[1:2] == ["--hrace"] and len(sys.argv) == 3:
        hrace_path = sys.argv[2]
    loader = importlib.machinery.SourceFileLoader("hrace_launcher", hrace_path)
    spec = importlib.util.spec_from_loader("hrace_launcher", loader)
    hrace = importlib.util.module_from_spec(spec)
    loader.exec_module(hrace)
    try:
        import yaml
    except ImportError:
        print("1..0 # SKIP PyYAML not installed (Debian: python3-yaml; scripts/install-deps.sh --test)")
        return 0
    text = open(os.path.join(TOP, "docs", "ci.md")).read()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.S)
    ok(len(blocks) == 2, "docs/ci.md has the GitHub and the GitLab snippet", len(blocks))
    docs = []
    for i, block in enumerate(blocks):
        try:
            docs.append(yaml.safe_load(block))
            ok(True, f"YAML block {i + 1} parses")
        except yaml.YAMLError as e:
            docs.append(None)
            ok(False, f"YAML block {i + 1} parses", e)
    gh, gl = (docs + [None, None])[:2]
    steps = (gh or {}).get("jobs", {}).get("hrace", {}).get("steps", [])
    upload = [s for s in steps if isinstance(s, dict) and
              str(s.get("uses", "")).startswith("github/codeql-action/upload-sarif")]
    sarif_out = [c for c in hrace_commands(gh) if "--sarif" in c]
    ok(upload and sarif_out and
       upload[0]["with"]["sarif_file"] in shlex.split(sarif_out[0]),
       "GitHub: upload-sarif uploads the file `hrace run --sarif` writes", (upload, sarif_out))
    job = (gl or {}).get("hrace", {})
    junit = job.get("artifacts", {}).get("reports", {}).get("junit")
    gl_cmds = list(hrace_commands(gl))
    ok(isinstance(job.get("script"), list) and junit and
       any(junit in shlex.split(c) for c in gl_cmds if "--junit" in c),
       "GitLab: the junit report is the file `hrace run --junit` writes", (junit, gl_cmds))
    commands = list(hrace_commands(gh)) + gl_cmds
    ok(len(commands) >= 2, "the snippets run hrace", commands)
    for c in commands:
        argv = shlex.split(c)[1:]
        command = argv[0]
        args = argv[1:]
        if command == "run":
            args = args[:args.index("--")] if "--" in args else args
        try:
            ns = hrace.parser_for(command).parse_args(args)
            ok(True, f"accepted by hrace's parser: {c}")
        except (hrace.UsageError, SystemExit) as e:
            ok(False, f"accepted by hrace's parser: {c}", e)
    return T.done()


if __name__ == "__main__":
    sys.exit(main())
