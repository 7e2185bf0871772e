#!/usr/bin/env python3
"""TAP: the README's option table names exactly the options of include/hrace_options.inc, with
their defaults, so the two lists cannot drift apart."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tap  # noqa: E402

top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
inc = open(os.path.join(top, "include", "hrace_options.inc")).read()
declared = {m.group(2): m.group(3).strip() for m in
            re.finditer(r'^HRACE_OPTION\((\w+),\s*(\w+),\s*("[^"]*"|[^,]+),', inc, re.M)}
readme = open(os.path.join(top, "README.md")).read()
section = readme.split("## Options", 1)[1].split("\n## ", 1)[0]
listed = {m.group(1): m.group(2).strip() for m in
          re.finditer(r'^\| `(\w+)` \| ([^|]*) \|', section, re.M)}
checks = [
    (sorted(declared) == sorted(listed),
     "README lists the options of hrace_options.inc",
     f"only in .inc: {sorted(set(declared) - set(listed))}; only in README: {sorted(set(listed) - set(declared))}"),
]
for name in sorted(set(declared) & set(listed)):
    checks.append((declared[name] == listed[name], f"README's default of {name}",
                   f"inc {declared[name]!r}, README {listed[name]!r}"))
tap.report(checks)
