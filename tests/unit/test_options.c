/* HRACE_OPTIONS parsing: defaults, each option type, separators, and that every rejected
 * input is named in the error message; hrace__options_init's exit paths run in a child. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
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

static void bail_out(const char *what, const char *arg) {
  printf("Bail out! %s %s\n", what, arg);
  exit(1);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) bail_out("cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

int main(void) {
  plan(122);
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

  /* Quoted values keep separators; the quotes are not part of the value. */
  ok(parse("suppressions=\"/a b/c,d.supp\" verbosity=1", &o), "double-quoted value parses");
  is_string("/a b/c,d.supp", o.suppressions, "double quotes keep spaces and commas");
  is_int(1, o.verbosity, "the item after a quoted value");
  ok(parse("report_dir='/x y/\"z\"',max_reports=3", &o), "single-quoted value parses");
  is_string("/x y/\"z\"", o.report_dir, "single quotes keep double quotes");
  is_int(3, o.max_reports, "the item after a single-quoted value");
  ok(parse("report_dir=/p/\"q r\"/s", &o), "a quoted part inside a value");
  is_string("/p/q r/s", o.report_dir, "quoted part joined with the rest");
  ok(parse("report_dir=\"a\\\"b\\\\c\"", &o), "escapes in double quotes");
  is_string("a\"b\\c", o.report_dir, "\\\" and \\\\ in double quotes");
  ok(parse("\"report_dir\"=\"\"", &o) && strcmp(o.report_dir, "") == 0, "quoted name, empty quoted value");
  rejects("suppressions=\"/a b", "'suppressions'");
  ok(strstr(err, "unterminated") != NULL, "unterminated quote says so (%s)", err);
  rejects("verbosity=1 report_dir='x", "'report_dir'");
  rejects("verbosity=\"1 2\"", "'1 2'");

  /* include=FILE: items from a file, nested includes relative to the including file. */
  char dir[] = "/tmp/hrace-opt-XXXXXX";
  if (!mkdtemp(dir)) bail_out("mkdtemp", dir);
  char sub[256], a[256], b[256], cyc1[256], cyc2[256], bad[256], spec[600];
  snprintf(sub, sizeof sub, "%s/sub dir", dir);
  mkdir(sub, 0700);
  snprintf(a, sizeof a, "%s/a.opts", dir);
  snprintf(b, sizeof b, "%s/b.opts", sub);
  write_file(a, "# options for the test\nverbosity=2\nreport_dir=\"/r s,t\"  # trailing comment\n"
                "include=\"sub dir/b.opts\"\n");
  write_file(b, "max_reports=5, report_text=0\n");
  snprintf(spec, sizeof spec, "max_reports=9 include=%s dump_clocks=1", a);
  ok(parse(spec, &o), "include parses (%s)", err);
  is_int(2, o.verbosity, "included option");
  is_string("/r s,t", o.report_dir, "included quoted option");
  is_int(5, o.max_reports, "nested include (relative to its includer) overrides earlier item");
  ok(!o.report_text, "nested include's second item");
  ok(o.dump_clocks, "the item after the include");
  snprintf(spec, sizeof spec, "include=\"%s\" max_reports=9", a);
  ok(parse(spec, &o) && o.max_reports == 9, "a later item overrides an included one");

  snprintf(spec, sizeof spec, "include=%s/missing.opts", dir);
  rejects(spec, "missing.opts");
  ok(strstr(err, "'include'") && strstr(err, "No such file"), "missing include names the option and why (%s)", err);
  rejects("include=", "'include'");

  snprintf(cyc1, sizeof cyc1, "%s/c1.opts", dir);
  snprintf(cyc2, sizeof cyc2, "%s/c2.opts", dir);
  write_file(cyc1, "verbosity=1\ninclude=c2.opts\n");
  write_file(cyc2, "include=c1.opts\n");
  snprintf(spec, sizeof spec, "include=%s", cyc1);
  rejects(spec, "c1.opts");
  ok(strstr(err, "cycle") != NULL, "an include cycle is named as such (%s)", err);
  write_file(cyc1, "include=c1.opts\n");
  rejects(spec, "cycle");

  snprintf(bad, sizeof bad, "%s/bad.opts", dir);
  write_file(bad, "verbosity=1\n# a comment\n  bogus=3\n");
  snprintf(spec, sizeof spec, "include=%s", bad);
  rejects(spec, "'bogus'");
  ok(strstr(err, "bad.opts:3:") != NULL, "an error in an include file names FILE:LINE (%s)", err);
  write_file(bad, "report_dir=\"open\n");
  rejects(spec, "bad.opts:1:");

  /* The whole route through the environment. */
  snprintf(spec, sizeof spec, "include=%s", bad);
  is_int(2, init_in_child(spec, out, sizeof out), "init exits 2 on a bad include file");
  ok(strstr(out, "bad.opts:1:") && strstr(out, "'report_dir'"), "init names the file, line and option: %s", out);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) diag("could not remove %s", dir);

  return tap_done();
}
