"""TAP output for the Python tests of tests/tools: plan, one line per check, the reason of each
failure as a comment; exits non-zero when any check failed."""
import sys


def report(checks):
    """checks: (good, what, why) triples, in order."""
    print(f"1..{len(checks)}")
    failed = 0
    for i, (good, what, why) in enumerate(checks, 1):
        print(f"{'ok' if good else 'not ok'} {i} - {what}")
        if not good:
            print(f"#   {why}")
            failed += 1
    sys.exit(1 if failed else 0)
