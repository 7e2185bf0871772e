/* The report writer: races and a diagnostic into a fresh report_dir, read back as JSON lines
 * (fields, ids, dedup counts, escaping, max_reports, summary) and as text from stderr. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <stdint.h>
#include <unistd.h>

#include "base/options.h"
#include "report/report.h"
#include "tap.h"

static char lines[32][2048];
static int nlines;

static void read_lines(const char *path) {
  FILE *f = fopen(path, "r");
  nlines = 0;
  if (!f) return;
  while (nlines < 32 && fgets(lines[nlines], sizeof lines[0], f)) nlines++;
  fclose(f);
}

static char text[16384];

static void read_all(const char *path) {
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[n] = '\0';
  if (f) fclose(f);
}

static int has(const char *hay, const char *needle, const char *what) {
  int r = ok(strstr(hay, needle) != NULL, "%s: %s", what, needle);
  if (!r) diag("in: %s", hay);
  return r;
}

static hrace_report_t race(const char *kind, const char *window, int la, int lb) {
  hrace_report_t r = {
    .kind = kind, .window = window, .owner = 1, .base = 0x7f0000001000,
    .a = { .op = "load", .rank = 1, .thread = 0,
           .loc = { .func = "main", .file = "/src/dir/x.c", .line = la }, .offset = 0, .size = 4 },
    .b = { .op = "MPI_Put", .rank = 0, .thread = 2,
           .loc = { .func = "writer", .file = "/src/dir/y.c", .line = lb }, .offset = 2, .size = 8 },
  };
  return r;
}

static __attribute__((noinline)) void misuse_here(void) {
  hrace__report_misuse((uintptr_t)__builtin_return_address(0), "MPI_Put outside an epoch on \"%s\"",
                       "win0");
}

int main(void) {
  plan(40);
  char dir[] = "/tmp/hrace-test-report-XXXXXX";
  if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
  char errpath[256], jsonpath[256];
  snprintf(errpath, sizeof errpath, "%s/stderr.txt", dir);
  snprintf(jsonpath, sizeof jsonpath, "%s/rank-0.jsonl", dir);

  hrace__opt.report_dir = dir;
  hrace__opt.report_text = true;
  hrace__opt.max_reports = 3;

  /* Capture stderr in a file to check the text format. */
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  int efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  dup2(efd, STDERR_FILENO);
  close(efd);

  hrace_rank_info_t me = { .rank = 0, .size = 2, .hosts = 1, .mpi_running = "Open MPI v4.1.4",
                           .mpi_built = "Open MPI 4.1.4" };
  hrace__report_init(&me);
  hrace_report_t r1 = race("remote", "my \"win\"\\1\t", 31, 25);
  hrace__report_race(&r1);                                   /* id 1 */
  hrace_report_t r2 = race("remote", "win0", 40, 25);       /* with everything a report can say */
  hrace_srcloc_t get = { .func = "get", .file = "/src/dir/h.h", .line = 3, .column = 7 };
  r2.a.loc = get;
  r2.a.frames[0] = (hrace_frame_t){ .loc = get, .inlined = true };
  r2.a.frames[1] = (hrace_frame_t){ .loc = { .func = "main", .file = "/src/dir/x.c", .line = 40,
                                              .column = 12 } };
  r2.a.frames[2] = (hrace_frame_t){ .loc = { .func = "start", .file = "/src/dir/x.c", .line = 70 } };
  r2.a.nframes = 3;
  r2.b.sync = "exclusive lock epoch on rank 1 (MPI_Win_lock at y.c:20)";
  r2.hint = "rank 1's load (h.h:3) is not ordered after rank 0's MPI_Put (y.c:25)";
  r2.addr = 0x601002;
  r2.variable = (hrace_datasym_t){ .name = "buf", .offset = 2, .size = 40 };
  hrace__report_race(&r2);                                   /* id 2 */
  hrace_report_t dup1 = race("remote", "other", 25, 31);      /* same lines, a/b files swapped */
  dup1.a.loc.file = "/src/dir/y.c";
  dup1.b.loc.file = "/src/dir/x.c";
  hrace__report_race(&dup1);                                 /* duplicate of 1 */
  hrace__report_race(&r1);                                   /* duplicate of 1 */
  int misuse_line = __LINE__; misuse_here();
  hrace_report_t r3 = race("rma-rma", "win0", 31, 25);       /* same lines, other kind */
  hrace__report_race(&r3);                                   /* id 3 */
  hrace_report_t r4 = race("remote", "win0", 50, 51);
  hrace__report_race(&r4);                                   /* id 4: over max_reports */
  hrace__report_race(&r4);
  is_int(4, hrace__report_count(), "four distinct races counted");
  hrace__report_finish();
  hrace__report_finish();                                    /* idempotent */

  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);

  read_lines(jsonpath);
  is_int(7, nlines, "rank, race, race, diagnostic, race, race-count, summary");
  has(lines[0], "{\"type\":\"rank\",\"rank\":0,\"size\":2,\"hosts\":1,\"host\":\"", "rank record first");
  has(lines[0], "\"mpi\":\"Open MPI v4.1.4\",\"mpi_built\":\"Open MPI 4.1.4\",\"hrace\":\"" HRACE_VERSION "\"}\n",
      "rank record: MPI that ran, MPI built for, hrace version");
  for (int i = 0; i < nlines; i++) {
    size_t n = strlen(lines[i]);
    ok(n > 2 && lines[i][0] == '{' && lines[i][n - 2] == '}' && lines[i][n - 1] == '\n',
       "line %d is one object and a newline", i + 1);
  }
  has(lines[1], "{\"type\":\"race\",\"id\":1,\"rank\":0,\"kind\":\"remote\",", "race 1");
  has(lines[1], "\"window\":\"my \\\"win\\\"\\\\1\\t\"", "window escaped");
  has(lines[1], "\"owner\":1,\"base\":\"0x7f0000001000\"", "race 1 owner/base");
  has(lines[1], "\"a\":{\"op\":\"load\",\"rank\":1,\"thread\":0,\"func\":\"main\","
                "\"file\":\"/src/dir/x.c\",\"line\":31,\"column\":0,\"offset\":0,\"size\":4,"
                "\"stack\":[{\"func\":\"main\",\"file\":\"/src/dir/x.c\",\"line\":31,"
                "\"column\":0,\"inlined\":false}],\"sync\":null}", "side a (stack of its location only)");
  has(lines[1], "\"b\":{\"op\":\"MPI_Put\",\"rank\":0,\"thread\":2,\"func\":\"writer\","
                "\"file\":\"/src/dir/y.c\",\"line\":25,\"column\":0,\"offset\":2,\"size\":8,\"stack\":[",
      "side b");
  has(lines[1], "\"window_site\":null,", "no window site: null");
  has(lines[1], "\"addr\":null,\"variable\":null,\"allocation\":null,\"hint\":null,",
      "unknown memory and hint are null");
  has(lines[2], "{\"type\":\"race\",\"id\":2,\"rank\":0,\"kind\":\"remote\",\"window\":\"win0\","
                "\"window_site\":null,\"owner\":1,\"base\":\"0x7f0000001000\",\"addr\":\"0x601002\","
                "\"variable\":{\"name\":\"buf\",\"offset\":2,\"size\":40},\"allocation\":null,"
                "\"hint\":\"rank 1's load (h.h:3) is not ordered after rank 0's MPI_Put (y.c:25)\","
                "\"a\":{\"op\":\"load\",\"rank\":1,\"thread\":0,\"func\":\"get\","
                "\"file\":\"/src/dir/h.h\",\"line\":3,\"column\":7,\"offset\":0,\"size\":4,\"stack\":["
                "{\"func\":\"get\",\"file\":\"/src/dir/h.h\",\"line\":3,\"column\":7,\"inlined\":true},"
                "{\"func\":\"main\",\"file\":\"/src/dir/x.c\",\"line\":40,\"column\":12,\"inlined\":false},"
                "{\"func\":\"start\",\"file\":\"/src/dir/x.c\",\"line\":70,\"column\":0,\"inlined\":false}],"
                "\"sync\":null},", "race 2: the whole line up to side b");
  has(lines[2], "\"sync\":\"exclusive lock epoch on rank 1 (MPI_Win_lock at y.c:20)\"}}\n",
      "race 2: side b's sync region");
  has(lines[3], "{\"type\":\"diagnostic\",\"rank\":0,\"severity\":\"error\","
                "\"message\":\"MPI_Put outside an epoch on \\\"win0\\\"\",\"func\":\"main\",",
      "diagnostic");
  char want[128];
  snprintf(want, sizeof want, "test_report.c\",\"line\":%d,\"column\":", misuse_line);
  has(lines[3], want, "diagnostic location");
  has(lines[4], "\"id\":3,\"rank\":0,\"kind\":\"rma-rma\"", "race 3: other kind, same lines");
  has(lines[5], "{\"type\":\"race-count\",\"id\":1,\"rank\":0,\"count\":3}", "dedup count");
  has(lines[6], "{\"type\":\"summary\",\"rank\":0,\"races\":4,\"diagnostics\":1,\"unreported\":1,"
                "\"suppressed\":0,\"instrumented\":0,\"mode\":\"window\"}",
      "summary");

  read_all(errpath);
  has(text, "==hrace== WARNING: data race (remote) on window \"win0\" of rank 1, bytes [2,4)\n"
            "==hrace==   memory: variable 'buf' (40 bytes), bytes [2,4) of it\n"
            "==hrace==   load     by rank 1 thread 0 at get (h.h:3:7)\n"
            "==hrace==              inlined in  main (x.c:40:12)\n"
            "==hrace==              called from start (x.c:70)\n"
            "==hrace==   MPI_Put  by rank 0 thread 2 at writer (y.c:25)\n"
            "==hrace==              in exclusive lock epoch on rank 1 (MPI_Win_lock at y.c:20)\n"
            "==hrace==   hint: rank 1's load (h.h:3) is not ordered after rank 0's MPI_Put (y.c:25)\n",
      "text race with memory, stack, region and hint");
  has(text, "==hrace== WARNING: data race (remote) on window \"my \"win\"\\1\t\" of rank 1, bytes [2,4)\n"
            "==hrace==   load     by rank 1 thread 0 at main (x.c:31)\n"
            "==hrace==   MPI_Put  by rank 0 thread 2 at writer (y.c:25)\n"
            "==hrace==   (neither access is ordered before the other by MPI or OpenMP "
            "synchronisation)\n", "text race without the optional parts");
  snprintf(want, sizeof want, "hrace: rank 0: error: MPI_Put outside an epoch on \"win0\" at main "
           "(test_report.c:%d:", misuse_line);
  has(text, want, "text diagnostic");
  has(text, "max_reports=3 reached", "text limit note");
  has(text, "hrace: rank 0: 4 distinct race(s) reported", "text summary");
  has(text, "hrace: note: no code of this program was built with hrace-cc: only MPI-level checks "
            "ran", "a plain-mpicc program is told that loads and stores were not checked");
  ok(strstr(text, "(50)") == NULL && strstr(text, "x.c:50") == NULL, "race 4 is not printed");
  const char *p = text;
  int blocks = 0;
  while ((p = strstr(p, "WARNING: data race"))) { blocks++; p++; }
  is_int(3, blocks, "three race blocks on stderr (duplicates not re-printed)");
  ok(strchr(text, '\033') == NULL, "no colour when stderr is not a tty");

  /* A report after finish still reaches the file (append). */
  hrace__opt.report_text = false;
  hrace__opt.max_reports = -1;
  hrace_report_t r5 = race("local", NULL, 60, 61);
  hrace__report_race(&r5);
  read_lines(jsonpath);
  is_int(8, nlines, "late race appended (no second rank record)");
  has(lines[7], "\"id\":5,\"rank\":0,\"kind\":\"local\",\"window\":null,", "late race, null window");
  ok(access(errpath, F_OK) == 0, "stderr capture exists");

  /* Run by hand, a process that found a race exits with `exitcode` (66, as ThreadSanitizer),
   * whatever status the program gave exit(); with exitcode=0 (what hrace run sets) the
   * program's own status stands. */
  hrace__opt.report_dir = "";
  for (int code = 66; code >= 0; code -= 66) {
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
      hrace__opt.exitcode = code;
      exit(3);
    }
    int status = 0;
    waitpid(child, &status, 0);
    is_int(code ? code : 3, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
           "exitcode=%d: the status of a process that found races", code);
  }
  /* halt_on_error: the first race ends the process with its report written. */
  fflush(NULL);
  pid_t child = fork();
  if (child == 0) {
    hrace__opt.report_dir = dir;
    hrace__opt.halt_on_error = true;
    hrace_report_t r6 = race("remote", "win0", 70, 71);
    hrace__report_race(&r6);
    _exit(0);   /* not reached */
  }
  int status = 0;
  waitpid(child, &status, 0);
  is_int(66, WIFEXITED(status) ? WEXITSTATUS(status) : -1, "halt_on_error exits 66 at the race");
  hrace__opt.exitcode = 0;   /* this test's own status is TAP's */

  unlink(errpath);
  unlink(jsonpath);
  rmdir(dir);
  return tap_done();
}
