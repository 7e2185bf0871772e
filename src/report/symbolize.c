/* Code address -> (function, file, line) with libdw's dwfl over this process's own mappings.
 * Only reports symbolize, so one mutex guards everything (libdw is not thread-safe); results
 * are cached per address and all strings are interned for the life of the process. */
#include "report/symbolize.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* ---- interned strings: open addressing over char *, never freed ---- */
static const char **strs;
static size_t strs_cap, strs_len;

static size_t str_hash(const char *s) {
  size_t h = 1469598103934665603u;   /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

static const char *intern(const char *s) {
  if (!s) return "??";
  if (2 * (strs_len + 1) > strs_cap) {
    size_t ncap = strs_cap ? 2 * strs_cap : 256;
    const char **n = calloc(ncap, sizeof *n);
    if (!n) return "??";
    for (size_t i = 0; i < strs_cap; i++) {
      if (!strs[i]) continue;
      size_t j = str_hash(strs[i]) & (ncap - 1);
      while (n[j]) j = (j + 1) & (ncap - 1);
      n[j] = strs[i];
    }
    free(strs);
    strs = n;
    strs_cap = ncap;
  }
  size_t j = str_hash(s) & (strs_cap - 1);
  for (; strs[j]; j = (j + 1) & (strs_cap - 1))
    if (strcmp(strs[j], s) == 0) return strs[j];
  char *copy = strdup(s);
  if (!copy) return "??";
  strs[j] = copy;
  strs_len++;
  return copy;
}

/* ---- per-address cache: open addressing keyed by the return address (0 = empty) ---- */
typedef struct sym_entry {
  uintptr_t ret;
  bool known;
  hrace_srcloc_t loc;
} sym_entry_t;

static sym_entry_t *cache;
static size_t cache_cap, cache_len;

static size_t addr_hash(uintptr_t a) { return (size_t)((a * 0x9E3779B97F4A7C15ull) >> 17); }

static sym_entry_t *cache_find(uintptr_t ret) {
  if (!cache_cap) return NULL;
  for (size_t j = addr_hash(ret) & (cache_cap - 1);; j = (j + 1) & (cache_cap - 1)) {
    if (cache[j].ret == ret) return &cache[j];
    if (cache[j].ret == 0) return NULL;
  }
}

static void cache_put(uintptr_t ret, bool known, const hrace_srcloc_t *loc) {
  if (2 * (cache_len + 1) > cache_cap) {
    size_t ncap = cache_cap ? 2 * cache_cap : 256;
    sym_entry_t *n = calloc(ncap, sizeof *n);
    if (!n) return;   /* no cache, still correct */
    for (size_t i = 0; i < cache_cap; i++) {
      if (!cache[i].ret) continue;
      size_t j = addr_hash(cache[i].ret) & (ncap - 1);
      while (n[j].ret) j = (j + 1) & (ncap - 1);
      n[j] = cache[i];
    }
    free(cache);
    cache = n;
    cache_cap = ncap;
  }
  size_t j = addr_hash(ret) & (cache_cap - 1);
  while (cache[j].ret) j = (j + 1) & (cache_cap - 1);
  cache[j] = (sym_entry_t){ .ret = ret, .known = known, .loc = *loc };
  cache_len++;
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

/* The innermost function whose code contains pc: an inlined subroutine's name when DWARF
 * records one (dwarf_diename follows DW_AT_abstract_origin), else the enclosing subprogram. */
static const char *dwarf_func_name(Dwarf_Die *cu, Dwarf_Addr pc) {
  Dwarf_Die *scopes = NULL;
  int n = dwarf_getscopes(cu, pc, &scopes);
  const char *name = NULL;
  for (int i = 0; i < n && !name; i++) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
      name = dwarf_diename(&scopes[i]);
  }
  free(scopes);
  return name;
}

/* Called with sym_lock held. */
static bool lookup(uintptr_t ret, hrace_srcloc_t *out) {
  *out = (hrace_srcloc_t){ .func = "??", .file = "??", .line = 0 };
  if (!sym_dwfl && !report_modules()) return false;
  Dwarf_Addr addr = ret - 1;   /* inside the call instruction, not after it */
  Dwfl_Module *mod = dwfl_addrmodule(sym_dwfl, addr);
  if (!mod) {
    /* Perhaps mapped since the last read (dlopen without a refresh): look once more. */
    if (!report_modules() || !(mod = dwfl_addrmodule(sym_dwfl, addr))) return false;
  }
  const char *modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  out->file = intern(modname ? modname : "??");

  bool known = false;
  const char *func = NULL;
  Dwarf_Addr bias;
  Dwarf_Die *cu = find_cu(mod, addr, &bias);
  if (cu) {
    Dwarf_Line *l = dwarf_getsrc_die(cu, addr - bias);
    const char *file = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
    int line = 0;
    if (file && dwarf_lineno(l, &line) == 0) {
      Dwarf_Attribute attr;
      const char *dir = file[0] != '/' ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr))
                                       : NULL;
      if (dir && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, file);
        out->file = intern(path);
      } else {
        out->file = intern(file);
      }
      out->line = line;
      known = true;
    }
    func = dwarf_func_name(cu, addr - bias);
  }
  if (!func) func = dwfl_module_addrname(mod, addr);   /* ELF symbol table */
  if (func) {
    out->func = intern(func);
    known = true;
  }
  return known;
}

bool hrace__symbolize(uintptr_t ret, hrace_srcloc_t *out) {
  if (ret == 0) {
    *out = (hrace_srcloc_t){ .func = "??", .file = "??", .line = 0 };
    return false;
  }
  pthread_mutex_lock(&sym_lock);
  bool known;
  sym_entry_t *e = cache_find(ret);
  if (e) {
    *out = e->loc;
    known = e->known;
  } else {
    known = lookup(ret, out);
    cache_put(ret, known, out);
  }
  pthread_mutex_unlock(&sym_lock);
  return known;
}

void hrace__symbolize_refresh(void) {
  pthread_mutex_lock(&sym_lock);
  if (sym_dwfl) dwfl_end(sym_dwfl);
  sym_dwfl = NULL;
  if (cache) memset(cache, 0, cache_cap * sizeof *cache);   /* interned strings stay valid */
  cache_len = 0;
  pthread_mutex_unlock(&sym_lock);
}
