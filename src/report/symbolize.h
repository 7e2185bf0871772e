/* Code address -> function, file, line (with the inlined calls it sits in), and data address ->
 * global variable, resolved with libdw / libelf (dwfl over this process's modules). Results are
 * cached per code address and live for the life of the process. Thread-safe. */
#ifndef HRACE_REPORT_SYMBOLIZE_H
#define HRACE_REPORT_SYMBOLIZE_H
#include <stdbool.h>
#include <stdint.h>

typedef struct hrace_srcloc {
  const char *func;   /* "main", "??" when unknown; never NULL. Qualified and demangled where
                         the module says more than the plain name: "ns::Grid::at(int)" for C++,
                         "mymod::proc" for a gfortran module procedure */
  const char *file;   /* full path as recorded in DWARF, or the module path; never NULL */
  int line;           /* 0 when unknown */
  int column;         /* 1-based; 0 when unknown (the compiler recorded none) */
} hrace_srcloc_t;

/* `ret` is a return address (as from __builtin_return_address(0)): the symbolizer looks up
 * ret - 1 so that the call instruction's line is reported. Returns false (and fills "??")
 * when nothing is known about the address. */
bool hrace__symbolize(uintptr_t ret, hrace_srcloc_t *out);
/* One source frame. A code address inside inlined code stands for several: the inlined
 * function(s) innermost first, each `inlined` into the next, then the function holding the
 * machine code. */
typedef struct hrace_frame {
  hrace_srcloc_t loc;
  bool inlined;       /* this frame was inlined into the next one */
} hrace_frame_t;

#define HRACE_INLINE_MAX 8   /* frames kept per code address (deeper inline chains are cut) */

/* The frames of return address `ret` (looked up at ret - 1 like hrace__symbolize), innermost
 * first; frames[0].loc is what hrace__symbolize gives. Writes at most `max`, returns how many
 * (0 when nothing is known about the address). */
unsigned hrace__symbolize_frames(uintptr_t ret, hrace_frame_t *out, unsigned max);

/* Does return address `ret` lie in the C runtime (libc or the dynamic loader)? The frames there
 * are below main and say nothing about a race; and looking them up is not free: libc's separate
 * debug info (libc6-dbg), where installed, has no .debug_aranges, so a lookup reads all of it
 * (16 MB resident per process). Asks the loader (dladdr), not libdw. */
bool hrace__symbolize_in_crt(uintptr_t ret);

/* A global or static variable (ELF symbol table: STT_OBJECT / STT_TLS with a size). */
typedef struct hrace_datasym {
  const char *name;   /* interned */
  uint64_t offset;    /* of the address inside the variable */
  uint64_t size;      /* the variable's size in bytes */
} hrace_datasym_t;

/* The variable that holds data address `addr`, if the symbol table of a loaded module names
 * one (heap, stack and anonymous mappings have none). */
bool hrace__symbolize_data(uintptr_t addr, hrace_datasym_t *out);

/* The readable form of a linkage (ELF symbol) name: C++ (Itanium ABI, through __cxa_demangle
 * when a C++ runtime is loaded in the process) and gfortran module procedures
 * ("__mod_MOD_proc" -> "mod::proc"); NULL when the name is not mangled or cannot be read.
 * The result is malloc'd. */
char *hrace__demangle(const char *name);

/* Read the process's mappings now (MPI_Init), not at the first look-up: reading
 * /proc/self/maps and reporting each module to libdw took ~2 M instructions plus the kernel's
 * time, which the first RMA operation's site paid inside the application's first epoch
 * (bench/README.md, "Session 16"). Modules loaded later are found by a fresh read as before. */
void hrace__symbolize_prepare(void);

/* Forget the module list (after dlopen); the next lookup re-reads /proc/self/maps. */
void hrace__symbolize_refresh(void);
#endif
