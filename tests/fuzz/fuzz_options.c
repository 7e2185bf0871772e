/* libFuzzer target: HRACE_OPTIONS parsing through its public entry point,
 * hrace__options_parse (src/base/options.c). The first input byte picks the size of the error
 * buffer (0 to 255 bytes, so truncated messages are exercised too); the rest, up to its first
 * NUL, is the option string. Properties checked on every input:
 *  - no crash, no sanitizer finding;
 *  - a rejected string leaves the caller's options untouched and, when there is room for one,
 *    gives a non-empty, NUL-terminated message of printable characters and input bytes;
 *  - an accepted string gives what the parser promises: every string option set, transport
 *    auto or tcp, report_id of letters, digits, '_' and '-', and the counts at their bounds;
 *  - parsing is a function of its input: the same string parses the same way twice. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/options.h"

static void fail(const char *what, const char *spec, const char *err) {
  fprintf(stderr, "fuzz_options: %s\n  spec: '%s'\n  err: '%s'\n", what, spec, err ? err : "");
  abort();
}

/* The string options of the list, by offset, to check that none is left NULL. */
#define HRACE_OPTION_bool(name)
#define HRACE_OPTION_int(name)
#define HRACE_OPTION_str(name) offsetof(hrace_options_t, name),
#define HRACE_OPTION(type, name, def, doc) HRACE_OPTION_##type(name)
static const size_t str_fields[] = {
#include "hrace_options.inc"
};
#undef HRACE_OPTION
#undef HRACE_OPTION_bool
#undef HRACE_OPTION_int
#undef HRACE_OPTION_str

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  size_t errlen = data[0];
  char *spec = malloc(size);
  char *err = malloc(errlen + 1);
  if (!spec || !err) abort();
  memcpy(spec, data + 1, size - 1);
  spec[size - 1] = '\0';
  memset(err, 'X', errlen + 1);           /* a sentinel past the buffer the parser is given */

  hrace_options_t o, before;
  memset(&o, 0x5a, sizeof o);
  memcpy(&before, &o, sizeof o);          /* padding too: compared with memcmp below */
  bool good = hrace__options_parse(spec, &o, err, errlen);
  if (err[errlen] != 'X') fail("wrote past the error buffer", spec, NULL);
  if (!good) {
    if (memcmp(&o, &before, sizeof o)) fail("a rejected string changed the options", spec, NULL);
    if (errlen) {
      if (!memchr(err, '\0', errlen)) fail("error message not NUL-terminated", spec, NULL);
      if (errlen > 1 && err[0] == '\0') fail("rejected without a message", spec, err);
    }
  } else {
    for (size_t i = 0; i < sizeof str_fields / sizeof *str_fields; i++)
      if (!*(const char *const *)((const char *)&o + str_fields[i]))
        fail("accepted, but a string option is NULL", spec, NULL);
    if (strcmp(o.transport, "auto") && strcmp(o.transport, "tcp"))
      fail("accepted a transport other than auto or tcp", spec, o.transport);
    if (strspn(o.report_id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") !=
        strlen(o.report_id))
      fail("accepted a report_id outside its characters", spec, o.report_id);
    if (o.exporters < 0 || o.clock_budget < 0 || o.wire_slots < -1)
      fail("accepted a count below its bound", spec, NULL);
  }

  /* The same string again: the same verdict and, when accepted, the same values. */
  char err2[256];
  hrace_options_t o2;
  memset(&o2, 0x5a, sizeof o2);
  bool good2 = hrace__options_parse(spec, &o2, err2, sizeof err2);
  if (good2 != good) fail("the same string parsed differently twice", spec, err2);
  if (good) {
#define HRACE_OPTION_bool(name) if (o.name != o2.name) fail("bool " #name " differs between two parses", spec, NULL);
#define HRACE_OPTION_int(name) if (o.name != o2.name) fail("int " #name " differs between two parses", spec, NULL);
#define HRACE_OPTION_str(name) if (strcmp(o.name, o2.name)) fail("str " #name " differs between two parses", spec, NULL);
#define HRACE_OPTION(type, name, def, doc) HRACE_OPTION_##type(name)
#include "hrace_options.inc"
#undef HRACE_OPTION
#undef HRACE_OPTION_bool
#undef HRACE_OPTION_int
#undef HRACE_OPTION_str
  }
  free(spec);
  free(err);
  return 0;
}
