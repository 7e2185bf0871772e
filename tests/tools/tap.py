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


class Tap:
    """Checks printed as they run (a long test shows how far it got), the plan at the end."""

    def __init__(self):
        self.n = self.failed = 0

    def ok(self, good, what, why=""):
        self.n += 1
        print(f"{'ok' if good else 'not ok'} {self.n} - {what}", flush=True)
        if not good:
            self.failed += 1
            for line in str(why).splitlines()[-30:] or [""]:
                print(f"#   {line}")
        return good

    def done(self):
        print(f"1..{self.n}")
        return 1 if self.failed else 0
