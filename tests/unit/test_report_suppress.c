/* Suppressions: the grammar (malformed lines are errors naming the line), each kind matching
 * exactly what it names and nothing else, and the report writer counting a suppressed race
 * without printing or writing it. */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "base/options.h"
#include "report/report.h"
#include "report/suppress.h"
#include "tap.h"

/* A remote race on window "halo": a load in get() inlined into main() at x.c:31 (file h.h:3),
 * against an MPI_Put in writer() at /src/lib/y.c:25. */
static hrace_report_t sample(void) {
  hrace_report_t r = {
    .kind = "remote", .window = "halo", .owner = 1,
    .a = { .op = "load", .rank = 1, .loc = { "get", "/src/app/h.h", 3 }, .nframes = 2,
           .frames = { { { "get", "/src/app/h.h", 3 }, true }, { { "main", "/src/app/x.c", 31 }, false } },
           .size = 4 },
    .b = { .op = "MPI_Put", .rank = 0, .loc = { "writer", "/src/lib/y.c", 25 }, .size = 4 },
  };
  return r;
}

static void matches(const char *rules, bool want, const char *why) {
  char err[512];
  hrace_supp_t *s = hrace__supp_parse(rules, "t.supp", err, sizeof err);
  hrace_report_t r = sample();
  const char *hit = s ? hrace__supp_match(s, &r) : NULL;
  if (!ok(s && (hit != NULL) == want, "%s: '%s' %s", why, rules, want ? "suppresses" : "does not"))
    diag("parse: %s, matched: %s", s ? "ok" : err, hit ? hit : "(none)");
  hrace__supp_free(s);
}

static void rejects(const char *text, const char *want_err, const char *why) {
  char err[512] = "";
  hrace_supp_t *s = hrace__supp_parse(text, "t.supp", err, sizeof err);
  if (!ok(s == NULL && strstr(err, want_err) != NULL, "malformed (%s) rejected with '%s'", why,
          want_err))
    diag("got: %s", s ? "(accepted)" : err);
  hrace__supp_free(s);
}

int main(void) {
  plan(35);

  /* function: any frame of either side's stack, inlined frames included. */
  matches("function:get", true, "inlined innermost function");
  matches("function:main", true, "caller of the inlined function");
  matches("function:writer", true, "function of the other side (no stack: its location)");
  matches("function:wri*", true, "glob");
  matches("function:mai", false, "prefix is not a match");
  matches("function:h.h", false, "a file name is not a function");

  /* file: the file of either access itself; no '/' matches the basename. */
  matches("file:h.h", true, "basename of the access's own file");
  matches("file:y.c", true, "basename of the other side's file");
  matches("file:x.c", false, "a caller's file is not the access's file");
  matches("file:/src/lib/*", true, "path glob");
  matches("file:/src/app/x.c", false, "path of a caller");
  matches("file:*.h", true, "basename glob");

  /* file:LINE: that file at that line only. */
  matches("file:h.h:3", true, "file:line of one side");
  matches("file:y.c:25", true, "file:line of the other side");
  matches("file:h.h:4", false, "other line");
  matches("file:y.c:3", false, "a line of the other side's file");
  matches("file:x.c:31", false, "a caller's file:line");

  /* window: the window's name. */
  matches("window:halo", true, "window name");
  matches("window:h*", true, "window glob");
  matches("window:main", false, "a function name is not a window");
  matches("window:x.c", false, "a file name is not a window");

  /* Comments, blank lines, white space. */
  matches("# comment\n\n   \n  window:halo  \n", true, "comments and blank lines skipped");
  matches("", false, "empty file");

  /* Malformed lines name the line. */
  rejects("window:halo\nfunctions:foo\n", "t.supp:2: unknown suppression kind 'functions'", "kind");
  rejects("\n\nfoo\n", "t.supp:3: expected KIND:PATTERN", "no colon");
  rejects("function:\n", "t.supp:1: empty pattern", "empty pattern");
  rejects("file:x.c:0\n", "t.supp:1: bad line number '0'", "line 0");
  rejects("file:x.c:\n", "t.supp:1: bad line number ''", "missing line");
  rejects("file:x.c:12a\n", "t.supp:1: bad line number '12a'", "line with letters");
  rejects("file::7\n", "t.supp:1: empty pattern", "file:LINE without a file");

  /* The writer: a suppressed race is counted in the summary, not printed or written. */
  char dir[] = "/tmp/hrace-test-supp-XXXXXX";
  if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
  char supp[256], json[256], errpath[256];
  snprintf(supp, sizeof supp, "%s/rules.supp", dir);
  snprintf(json, sizeof json, "%s/rank-3.jsonl", dir);
  snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
  FILE *f = fopen(supp, "w");
  fputs("# known: the halo exchange\nwindow:halo\n", f);
  fclose(f);
  hrace__opt.report_dir = dir;
  hrace__opt.report_text = true;
  hrace__opt.suppressions = supp;
  fflush(stderr);
  int saved = dup(STDERR_FILENO), efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(efd, STDERR_FILENO);
  close(efd);
  hrace_rank_info_t me = { .rank = 3, .size = 4 };
  hrace__report_init(&me);
  hrace_report_t r = sample();
  hrace__report_race(&r);
  hrace__report_race(&r);
  hrace_report_t other = sample();
  other.window = "grid";
  other.a.loc.line = other.a.frames[0].loc.line = 9;
  hrace__report_race(&other);
  is_int(1, hrace__report_count(), "one race reported, the suppressed one not counted");
  hrace__report_finish();
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  char buf[8192] = "";
  f = fopen(json, "r");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  buf[n] = '\0';
  if (f) fclose(f);
  ok(strstr(buf, "\"window\":\"grid\"") && !strstr(buf, "\"window\":\"halo\""),
     "only the unsuppressed race is written");
  ok(strstr(buf, "\"races\":1,\"diagnostics\":0,\"unreported\":0,\"suppressed\":1,") != NULL,
     "summary counts the suppressed race");
  f = fopen(errpath, "r");
  n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  buf[n] = '\0';
  if (f) fclose(f);
  ok(!strstr(buf, "\"halo\"") && strstr(buf, "1 distinct race(s) reported, 1 suppressed"),
     "text: suppressed race not printed, summary says so");
  if (!ok(true, "stderr captured")) diag("%s", buf);
  unlink(supp);
  unlink(json);
  unlink(errpath);
  rmdir(dir);
  hrace__opt.exitcode = 0;   /* found races on purpose: this status is TAP's */
  return tap_done();
}
