/* HRACE_OPTIONS parsing: defaults, each option type, separators, and that every rejected
 * input is named in the error message; hrace__options_init's exit paths run in a child. */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/options.h"
#include "tap.h"

static char err[512];

static bool parse(const char *spec, hrace_options_t *o) {
  return hrace__options_parse(spec, o, err, sizeof err);
}

/* The parse must fail and the message must contain `needle` (the offending text). */
static void rejects(const char *spec, const char *needle) {
  hrace_options_t o = hrace__opt;
  o.verbosity = 42;   /* a failed parse leaves the target alone */
  bool good = parse(spec, &o);
  ok(!good, "rejects '%s'", spec);
  ok(strstr(err, needle) != NULL, "error for '%s' names %s", spec, needle);
  if (!strstr(err, needle)) diag("message: %s", err);
  is_int(42, o.verbosity, "'%s' leaves the options unchanged", spec);
}

/* Runs hrace__options_init in a child with HRACE_OPTIONS=spec; returns its exit status and
 * what it wrote to stderr. */
static int init_in_child(const char *spec, char *out, size_t outlen) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    setenv("HRACE_OPTIONS", spec, 1);
    hrace__options_init();
    _exit(99);
  }
  close(fds[1]);
  size_t len = 0;
  ssize_t n;
  while (len + 1 < outlen && (n = read(fds[0], out + len, outlen - 1 - len)) > 0) len += (size_t)n;
  out[len] = '\0';
  close(fds[0]);
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void) {
  plan(71);
  hrace_options_t o;

  /* Defaults: the global is usable before any init. */
  ok(!hrace__opt.help, "default help=0");
  ok(hrace__opt.report_text, "default report_text=1");
  is_string("", hrace__opt.report_dir, "default report_dir is empty");
  is_int(0, hrace__opt.verbosity, "default verbosity=0");
  is_int(1000, hrace__opt.max_reports, "default max_reports=1000");
  ok(parse(NULL, &o) && o.report_text && o.max_reports == 1000, "NULL spec gives the defaults");
  ok(parse("", &o) && o.verbosity == 0, "empty spec gives the defaults");

  /* Each type. */
  ok(parse("report_text=0", &o) && !o.report_text, "bool 0");
  ok(parse("dump_clocks=1", &o) && o.dump_clocks, "bool 1");
  ok(parse("dump_clocks=true", &o) && o.dump_clocks, "bool true");
  ok(parse("report_text=false", &o) && !o.report_text, "bool false");
  ok(parse("dump_clocks=yes", &o) && o.dump_clocks, "bool yes");
  ok(parse("report_text=no", &o) && !o.report_text, "bool no");
  ok(parse("verbosity=2", &o) && o.verbosity == 2, "int 2");
  ok(parse("max_reports=-1", &o) && o.max_reports == -1, "int -1");
  ok(parse("max_reports=9223372036854775807", &o) && o.max_reports == 9223372036854775807L,
     "int LONG_MAX");
  ok(parse("report_dir=/tmp/x=y", &o), "str with '=' in the value");
  is_string("/tmp/x=y", o.report_dir, "str is the rest of the item");
  ok(parse("report_dir=", &o), "empty str");
  is_string("", o.report_dir, "empty str value");

  /* Separators: spaces, tabs, newlines, commas, runs of them, leading and trailing. */
  ok(parse(" ,verbosity=1,report_text=0\t report_dir=/r\n,,max_reports=7 , ", &o),
     "mixed separators parse");
  is_int(1, o.verbosity, "verbosity after mixed separators");
  ok(!o.report_text, "report_text after mixed separators");
  is_string("/r", o.report_dir, "report_dir after mixed separators");
  is_int(7, o.max_reports, "max_reports after mixed separators");
  ok(parse("verbosity=1 verbosity=2", &o) && o.verbosity == 2, "the last occurrence wins");
  ok(parse("verbosity=1", &o) && parse("", &o) && o.verbosity == 0, "each parse starts from defaults");

  /* Errors name the bad item or value. */
  rejects("foo=1", "'foo'");
  rejects("verbosity", "'verbosity'");
  rejects("=3", "'=3'");
  rejects("help=maybe", "'maybe'");
  rejects("verbosity=3x", "'3x'");
  rejects("verbosity=", "'verbosity'");
  rejects("verbosity=99999999999999999999", "'99999999999999999999'");
  ok(strstr(err, "range") != NULL, "overflow says out of range (%s)", err);
  rejects("report_text=1,bogus", "'bogus'");
  rejects("transport=udp", "'udp'");
  rejects("clock_budget=-1", "'clock_budget'");
  rejects("exporters=-2", "'exporters'");
  rejects("wire_slots=-2", "'wire_slots' wants -1 or more");
  ok(parse("wire_slots=-1", &o) && o.wire_slots == -1, "wire_slots=-1 (testing: every clock as a tail)");
  ok(parse("clock_budget=0,exporters=3", &o) && o.clock_budget == 0 && o.exporters == 3,
     "clock_budget=0 (no cap), exporters=3");
  ok(parse("transport=tcp", &o) && strcmp(o.transport, "tcp") == 0, "transport=tcp");

  /* hrace__options_init: exit 2 on errors, exit 0 with help. */
  char out[4096];
  is_int(2, init_in_child("verbosity=x", out, sizeof out), "init exits 2 on a bad value");
  ok(strncmp(out, "hrace: error: HRACE_OPTIONS: ", 29) == 0 && strstr(out, "'x'"),
     "init error message: %s", out);
  is_int(0, init_in_child("help=1", out, sizeof out), "help=1 exits 0");
  ok(strstr(out, "max_reports") && strstr(out, "report_dir") && strstr(out, "1000"),
     "help lists the options with defaults");

  return tap_done();
}
