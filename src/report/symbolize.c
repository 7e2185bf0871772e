/* Code address -> source frames (function, file, line; inlined calls included) and data
 * address -> global variable, with libdw's dwfl over this process's own mappings.
 * Only reports symbolize, so one mutex guards everything (libdw is not thread-safe); results
 * are cached per address and all strings are interned for the life of the process. */
#include "report/symbolize.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/map.h"

static pthread_mutex_t sym_lock = PTHREAD_MUTEX_INITIALIZER;
static Dwfl *sym_dwfl;

/* Separate debug info is looked up by build-id under the default debuginfo path only.
 * dwfl_standard_find_debuginfo would fall back to debuginfod when DEBUGINFOD_URLS is set
 * (Debian's profile.d sets it): a network download inside a race report is not acceptable. */
static char *debuginfo_path;
static const Dwfl_Callbacks sym_callbacks = {
  .find_elf = dwfl_linux_proc_find_elf,
  .find_debuginfo = dwfl_build_id_find_debuginfo,
  .debuginfo_path = &debuginfo_path,
};

/* ---- interned strings: never freed ---- */
static hrace_map_t strs = HRACE_MAP_INIT;   /* FNV-1a of the string -> the copy */

static bool str_eq(const void *val, const void *arg) { return strcmp(val, arg) == 0; }

static const char *intern(const char *s) {
  if (!s) return "??";
  uint64_t h = hrace_hash_str(s, HRACE_HASH_SEED);
  const char *got = hrace_map_find(&strs, h, str_eq, s);
  if (got) return got;
  char *copy = strdup(s);
  if (!copy) return "??";
  hrace_map_add(&strs, h, copy);
  return copy;
}

/* ---- demangling ---- */
/* libstdc++'s (and libc++'s) demangler, looked up in the process rather than linked: a C++
 * program has it loaded, and a program with no C++ runtime has no C++ names to read. */
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static char *demangle_fortran(const char *name) {
  /* gfortran: module procedure `proc` of module `mod` is "__mod_MOD_proc"; no other
   * encoding is involved (names are lower case, '_' is literal). */
  if (strncmp(name, "__", 2) != 0) return NULL;
  const char *mod = name + 2, *sep = strstr(mod, "_MOD_");
  if (!sep || sep == mod || sep[5] == '\0') return NULL;
  size_t nm = (size_t)(sep - mod), np = strlen(sep + 5);
  char *out = malloc(nm + 2 + np + 1);
  if (!out) return NULL;
  memcpy(out, mod, nm);
  memcpy(out + nm, "::", 2);
  memcpy(out + nm + 2, sep + 5, np + 1);
  return out;
}

char *hrace__demangle(const char *name) {
  if (!name) return NULL;
  if (strncmp(name, "_Z", 2) == 0) {
    static cxa_demangle_fn fn;
    static bool looked;
    if (!looked) {   /* under sym_lock, or from a test on one thread */
      fn = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
      looked = true;
    }
    int status = -1;
    char *out = fn ? fn(name, NULL, NULL, &status) : NULL;
    if (status == 0 && out) return out;
    free(out);
    return NULL;
  }
  return demangle_fortran(name);
}

/* The name to show for a function whose DWARF name is `plain` and whose linkage (ELF) name
 * is `linkage` (either may be NULL): the demangled linkage name when there is one, interned. */
static const char *func_name(const char *plain, const char *linkage) {
  char *d = hrace__demangle(linkage);
  if (!d && plain) return intern(plain);
  if (!d) d = hrace__demangle(plain);   /* an ELF symbol handed in as the plain name */
  if (!d) return intern(plain ? plain : linkage);
  const char *got = intern(d);
  free(d);
  return got;
}

/* DW_AT_linkage_name of a function DIE, following DW_AT_abstract_origin (inlined copies) and
 * DW_AT_specification (C++ member functions defined outside their class). */
static const char *linkage_name(Dwarf_Die *die) {
  Dwarf_Attribute attr;
  const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  if (!n) n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
  return n;
}

/* ---- per-address cache, keyed by the return address ---- */
typedef struct sym_entry {
  uintptr_t ret;
  unsigned n;                  /* frames known (0: nothing) */
  hrace_frame_t *frames;       /* n frames, innermost first; owned by the cache */
  hrace_srcloc_t unknown;      /* n == 0: "??" or the module path */
} sym_entry_t;

static hrace_map_t cache = HRACE_MAP_INIT;  /* ret -> sym_entry_t */

static sym_entry_t *cache_find(uintptr_t ret) { return hrace_map_get(&cache, ret); }

/* Takes ownership of e->frames; returns the stored entry, or NULL (no memory: not cached). */
static sym_entry_t *cache_put(const sym_entry_t *e) {
  sym_entry_t *c = malloc(sizeof *c);
  if (!c) return NULL;
  *c = *e;
  hrace_map_put(&cache, e->ret, c);
  return c;
}

/* (Re-)read /proc/self/maps. Modules reported again keep their already loaded debug info
 * (dwfl_report_begin only marks the old set for deletion). */
static bool report_modules(void) {
  if (!sym_dwfl && !(sym_dwfl = dwfl_begin(&sym_callbacks))) return false;
  dwfl_report_begin(sym_dwfl);
  int err = dwfl_linux_proc_report(sym_dwfl, getpid());
  dwfl_report_end(sym_dwfl, NULL, NULL);
  return err == 0;
}

/* The module mapped at addr, looking once more after a fresh read of the mappings (dlopen
 * without a refresh). */
static Dwfl_Module *module_at(Dwarf_Addr addr) {
  if (!sym_dwfl && !report_modules()) return NULL;
  Dwfl_Module *mod = dwfl_addrmodule(sym_dwfl, addr);
  if (!mod && report_modules()) mod = dwfl_addrmodule(sym_dwfl, addr);
  /* The tail of a module's .bss lies past its last file-backed page, in an anonymous mapping
   * that the module's range read from /proc/self/maps may not include (seen with the larger
   * .bss of an AddressSanitizer build, depending on where ASLR put the heap): the loader's own
   * view of the object (its PT_LOAD segments, memory sizes included) names the module. */
  Dl_info info;
  if (!mod && dladdr((void *)(uintptr_t)addr, &info) && info.dli_fbase)
    mod = dwfl_addrmodule(sym_dwfl, (Dwarf_Addr)(uintptr_t)info.dli_fbase);
  return mod;
}

/* The compile unit containing addr. dwfl_module_addrdie looks only in .debug_aranges, which
 * clang 14 does not emit (gcc does) and libdw 0.188 does not synthesise: without the scan over
 * the unit's own ranges, clang-built code would get no file:line at all. */
static Dwarf_Die *find_cu(Dwfl_Module *mod, Dwarf_Addr addr, Dwarf_Addr *bias) {
  Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, bias);
  if (cu) return cu;
  while ((cu = dwfl_module_nextcu(mod, cu, bias)))
    if (dwarf_haspc(cu, addr - *bias) > 0) return cu;
  return NULL;
}

/* A file name of the unit made absolute with its compilation directory, interned. */
static const char *unit_path(Dwarf_Die *cu, const char *file) {
  if (!file) return "??";
  Dwarf_Attribute attr;
  const char *dir = file[0] != '/' ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr)) : NULL;
  if (dir && *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return intern(path);
  }
  return intern(file);
}

/* Entry i of the unit's file table (DW_AT_call_file of an inlined call), made absolute. */
static const char *unit_file(Dwarf_Die *cu, Dwarf_Word index) {
  Dwarf_Files *files;
  size_t nfiles;
  if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || index >= nfiles) return "??";
  return unit_path(cu, dwarf_filesrc(files, index, NULL, NULL));
}

/* The source frames at pc (module-relative, in unit cu), innermost first: the scopes that are
 * functions (DW_TAG_inlined_subroutine, then the DW_TAG_subprogram holding the code). Frame 0
 * takes its file:line from the line table; each further frame the call site that the inlined
 * scope below it records (DW_AT_call_file / DW_AT_call_line).
 * dwarf_diename follows DW_AT_abstract_origin to the inlined function's name. */
static unsigned dwarf_frames(Dwarf_Die *cu, Dwarf_Addr pc, hrace_frame_t *out, unsigned max) {
  Dwarf_Line *l = dwarf_getsrc_die(cu, pc);
  const char *file = l ? unit_path(cu, dwarf_linesrc(l, NULL, NULL)) : "??";
  int line = 0, col = 0;
  if (!l || dwarf_lineno(l, &line) != 0) line = 0;
  if (!l || dwarf_linecol(l, &col) != 0 || col < 0) col = 0;
  Dwarf_Die *scopes = NULL;
  int n = dwarf_getscopes(cu, pc, &scopes);
  if (n > 0) {
    /* From an inlined scope outward, dwarf_getscopes continues with the abstract definition's
     * scopes (what variable lookup wants); the concrete chain of call sites comes from
     * dwarf_getscopes_die on the innermost scope, as eu-addr2line -i does. */
    Dwarf_Die innermost = scopes[0];
    free(scopes);
    scopes = NULL;
    n = dwarf_getscopes_die(&innermost, &scopes);
  }
  unsigned k = 0;
  for (int i = 0; i < n && k < max; i++) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine) continue;
    const char *name = func_name(dwarf_diename(&scopes[i]), linkage_name(&scopes[i]));
    out[k++] = (hrace_frame_t){ .loc = { .func = name, .file = file, .line = line, .column = col },
                                .inlined = tag == DW_TAG_inlined_subroutine };
    if (tag == DW_TAG_subprogram) break;
    Dwarf_Attribute attr;
    Dwarf_Word cfile = 0, cline = 0, ccol = 0;
    bool has_file = dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &cfile) == 0;
    if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &cline) != 0) cline = 0;
    if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_column, &attr), &ccol) != 0) ccol = 0;
    file = has_file ? unit_file(cu, cfile) : "??";
    line = (int)cline;
    col = (int)ccol;
  }
  free(scopes);
  if (k == 0 && l) {   /* line info but no function scope (assembly, stripped DIEs) */
    out[0] = (hrace_frame_t){ .loc = { .func = "??", .file = file, .line = line, .column = col } };
    k = 1;
  }
  return k;
}

/* Called with sym_lock held: fills e (frames malloc'd). */
static void lookup(uintptr_t ret, sym_entry_t *e) {
  *e = (sym_entry_t){ .ret = ret, .unknown = { .func = "??", .file = "??", .line = 0 } };
  Dwarf_Addr addr = ret - 1;   /* inside the call instruction, not after it */
  Dwfl_Module *mod = module_at(addr);
  if (!mod) return;
  const char *modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  e->unknown.file = intern(modname ? modname : "??");

  hrace_frame_t frames[HRACE_INLINE_MAX];
  unsigned n = 0;
  Dwarf_Addr bias;
  Dwarf_Die *cu = find_cu(mod, addr, &bias);
  if (cu) n = dwarf_frames(cu, addr - bias, frames, HRACE_INLINE_MAX);
  if (n > 0 && strcmp(frames[n - 1].loc.func, "??") == 0) {
    const char *sym = dwfl_module_addrname(mod, addr);   /* ELF symbol table */
    if (sym) frames[n - 1].loc.func = func_name(NULL, sym);
  }
  if (n == 0) {   /* no DWARF: the ELF symbol and the module path */
    const char *sym = dwfl_module_addrname(mod, addr);
    if (!sym) return;
    frames[0] = (hrace_frame_t){ .loc = { .func = func_name(NULL, sym), .file = e->unknown.file } };
    n = 1;
  }
  e->frames = malloc(n * sizeof *e->frames);
  if (!e->frames) return;
  memcpy(e->frames, frames, n * sizeof *frames);
  e->n = n;
}

/* The cache entry of ret, looked up on a miss. Called with sym_lock held. */
static const sym_entry_t *entry(uintptr_t ret, sym_entry_t *scratch) {
  sym_entry_t *e = cache_find(ret);
  if (e) return e;
  lookup(ret, scratch);
  e = cache_put(scratch);
  if (!e) {   /* not cached: the caller copies out, then the frames are dropped */
    return scratch;
  }
  return e;
}

bool hrace__symbolize(uintptr_t ret, hrace_srcloc_t *out) {
  hrace_frame_t f;
  if (hrace__symbolize_frames(ret, &f, 1)) {
    *out = f.loc;
    return true;
  }
  if (ret == 0) {
    *out = (hrace_srcloc_t){ .func = "??", .file = "??", .line = 0 };
    return false;
  }
  pthread_mutex_lock(&sym_lock);
  const sym_entry_t *e = cache_find(ret);
  *out = e ? e->unknown : (hrace_srcloc_t){ .func = "??", .file = "??", .line = 0 };
  pthread_mutex_unlock(&sym_lock);
  return false;
}

unsigned hrace__symbolize_frames(uintptr_t ret, hrace_frame_t *out, unsigned max) {
  if (ret == 0 || max == 0) return 0;
  pthread_mutex_lock(&sym_lock);
  sym_entry_t scratch;
  const sym_entry_t *e = entry(ret, &scratch);
  unsigned n = e->n < max ? e->n : max;
  if (n) memcpy(out, e->frames, n * sizeof *out);   /* frames is NULL when nothing resolved */
  if (e == &scratch) free(scratch.frames);
  pthread_mutex_unlock(&sym_lock);
  return n;
}

bool hrace__symbolize_in_crt(uintptr_t ret) {
  Dl_info info;
  if (ret == 0 || !dladdr((void *)(ret - 1), &info) || !info.dli_fname) return false;
  const char *b = strrchr(info.dli_fname, '/');
  b = b ? b + 1 : info.dli_fname;
  return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) || !strncmp(b, "ld-linux", 8) ||
         !strncmp(b, "ld-musl", 7);
}

bool hrace__symbolize_data(uintptr_t addr, hrace_datasym_t *out) {
  pthread_mutex_lock(&sym_lock);
  bool found = false;
  Dwfl_Module *mod = addr ? module_at(addr) : NULL;
  GElf_Off off;
  GElf_Sym sym;
  const char *name = mod ? dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL) : NULL;
  int type = name ? GELF_ST_TYPE(sym.st_info) : STT_NOTYPE;
  if (name && (type == STT_OBJECT || type == STT_TLS) && off < sym.st_size) {
    *out = (hrace_datasym_t){ .name = func_name(NULL, name), .offset = off, .size = sym.st_size };
    found = true;
  }
  pthread_mutex_unlock(&sym_lock);
  return found;
}

void hrace__symbolize_prepare(void) {
  pthread_mutex_lock(&sym_lock);
  if (!sym_dwfl) report_modules();
  pthread_mutex_unlock(&sym_lock);
}

void hrace__symbolize_refresh(void) {
  pthread_mutex_lock(&sym_lock);
  if (sym_dwfl) dwfl_end(sym_dwfl);
  sym_dwfl = NULL;
  void *v;
  for (size_t it = 0; hrace_map_next(&cache, &it, NULL, &v);) {
    free(((sym_entry_t *)v)->frames);
    free(v);
  }
  hrace_map_free(&cache);   /* interned strings stay valid */
  pthread_mutex_unlock(&sym_lock);
}
