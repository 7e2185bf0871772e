/* Suppressions: rules that keep known races out of the report, read from the file named by
 * the option `suppressions` (`hrace run --suppressions FILE` sets it). One rule per line:
 *
 *   function:GLOB         a function on the short stack of either access (inlined ones too)
 *   file:GLOB             the file of either access itself (its innermost frame)
 *   file:GLOB:LINE        the same, at that line
 *   window:GLOB           the window's name
 *   race:GLOB             (ThreadSanitizer's) a function or file of any frame of either access
 *   race_top:GLOB         (ThreadSanitizer's) the same, innermost frame only
 *   called_from_lib:NAME  (ThreadSanitizer's) a frame in a file or library of that name
 *
 * GLOB is an fnmatch(3) pattern; for file, a pattern without '/' is matched against the
 * basename, one with '/' against the whole path. Blank lines and lines starting with '#' are
 * ignored, and so is a '#' after white space to the end of its line; anything else is an error
 * naming the line. The launcher uses this very code (tools/hrace-supp.c). */
#ifndef HRACE_REPORT_SUPPRESS_H
#define HRACE_REPORT_SUPPRESS_H
#include <stddef.h>
#include "report/report.h"

typedef struct hrace_supp hrace_supp_t;

/* Parse `text` (the contents of file `name`, used in messages). On error returns NULL and
 * writes "NAME:LINE: <what is wrong>" into err. An empty rule set is not NULL. */
hrace_supp_t *hrace__supp_parse(const char *text, const char *name, char *err, size_t errlen);
/* Read and parse a file; on error (unreadable or malformed) NULL and a message in err. */
hrace_supp_t *hrace__supp_load(const char *path, char *err, size_t errlen);
/* The first rule that matches the race, as written in the file ("function:foo"), or NULL.
 * Counts the hit. */
const char *hrace__supp_match(hrace_supp_t *s, const hrace_report_t *r);
/* Rules with their hit counts, for a note at the end: calls f once per rule. */
void hrace__supp_each(const hrace_supp_t *s, void (*f)(void *ctx, const char *rule, unsigned long hits),
                      void *ctx);
void hrace__supp_free(hrace_supp_t *s);
#endif
