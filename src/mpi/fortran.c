/* Fortran MPI calls that bypass the C symbols.
 *
 * A Fortran binding converts its arguments and then calls the C library. Where it calls the C
 * symbol (MPI_Send), hrace's wrapper sees the call like a C caller's; where it calls the
 * profiling symbol (PMPI_Send), the call bypassed hrace completely: no window known, no
 * message framed, no edge recorded. Which bindings do that:
 *  - Open MPI 4.1: all of them. `mpi_send_` (mpif.h / use mpi) and `mpi_send_f08_` (use
 *    mpi_f08, through ompi_send_f) call PMPI_Send through the procedure linkage table of
 *    libmpi_mpifh.so (and of the use-mpi libraries).
 *  - MPICH 4.0: `mpif.h` / `use mpi` (`mpi_send_`) call the C symbols, and so do the `use
 *    mpi_f08` routines with a choice buffer (`mpi_send_f08ts_`, `mpi_put_f08ts_`, through a
 *    C-descriptor helper); the other `use mpi_f08` routines (`mpi_init_f08_`,
 *    `mpi_win_fence_f08_`, `mpi_wait_f08_`, `mpi_win_allocate_f08_`, `mpi_barrier_f08_`, ...)
 *    call PMPI_* through the PLT of libmpichfort.so. A `use mpi_f08` main program never ran
 *    hrace's MPI_Init, so nothing of it was checked; with MPI_Init from C, its fences, waits
 *    and window allocations were missed. In libmpichfort only those f08 routines (and their
 *    PMPI twins `pmpir_*_f08_`, which share the PLT slots) call PMPI_ functions hrace wraps.
 *
 * Instead of writing (or generating) a second set of wrappers that re-implement the MPIs'
 * Fortran conversions (handles, statuses, MPI_BOTTOM / MPI_IN_PLACE sentinels, 1-based
 * indices of Waitany, f08 derived types and descriptors...), hrace points those PLT slots at
 * its own C wrappers: a slot bound to PMPI_X is rewritten to hrace's MPI_X when libhrace
 * defines MPI_X. The MPI's binding still does every conversion; the C wrapper then sees
 * exactly what a C caller would have passed, and reports the Fortran line (the wrapper's
 * return address lies in the binding library, so core/mpicode.h walks the stack to the
 * application's frame).
 *
 * Only the Fortran binding libraries are touched (by file name), only slots of functions hrace
 * wraps, and only once each: at load, before the program can call MPI_Init, and again at
 * MPI_Init for bindings opened later with dlopen. HRACE_NO_FORTRAN_ROUTE=1 (for tests: a race
 * case must fail without the routing) leaves every slot alone. */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/mpicode.h"
#include "base/log.h"
#include "mpi/handlers.h"

static const char *const binding_libs[] = {
  "libmpi_mpifh.so", "libmpi_usempif08.so", "libmpi_usempi_ignore_tkr.so", "libmpi_usempi.so",
  "libmpichfort.so",
};

static int is_binding(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  for (size_t i = 0; i < sizeof binding_libs / sizeof *binding_libs; i++)
    if (!strncmp(base, binding_libs[i], strlen(binding_libs[i]))) return 1;
  return 0;
}


/* Make [p, p + n) writable if it is not (RELRO, or a BIND_NOW object's whole GOT); returns
 * the protection to restore (0 if nothing changed). */
static int unprotect(const struct dl_phdr_info *info, uintptr_t p, size_t n) {
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_GNU_RELRO) continue;
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (p + n <= lo || p >= hi) continue;
    uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = p & ~(pg - 1);
    if (mprotect((void *)a, p + n - a, PROT_READ | PROT_WRITE)) return -1;
    return PROT_READ;
  }
  return 0;
}

/* The dynamic section's addresses: glibc relocates them in place on most targets, not on
 * all; an address below the load base is still a file offset. */
static uintptr_t dyn_addr(const struct dl_phdr_info *info, ElfW(Addr) a) {
  return a < info->dlpi_addr ? info->dlpi_addr + a : a;
}

static int patch_one(struct dl_phdr_info *info, size_t size, void *arg) {
  int *patched = arg;
  if (!info->dlpi_name || !is_binding(info->dlpi_name)) return 0;
  const ElfW(Dyn) *dyn = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++)
    if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
      dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
  if (!dyn) return 0;
  const ElfW(Sym) *symtab = NULL;
  const char *strtab = NULL;
  const ElfW(Rela) *jmprel = NULL;
  size_t pltrelsz = 0;
  for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
    switch (d->d_tag) {
    case DT_SYMTAB: symtab = (const ElfW(Sym) *)dyn_addr(info, d->d_un.d_ptr); break;
    case DT_STRTAB: strtab = (const char *)dyn_addr(info, d->d_un.d_ptr); break;
    case DT_JMPREL: jmprel = (const ElfW(Rela) *)dyn_addr(info, d->d_un.d_ptr); break;
    case DT_PLTRELSZ: pltrelsz = d->d_un.d_val; break;
    case DT_PLTREL: if (d->d_un.d_val != DT_RELA) return 0; break;   /* x86-64, aarch64: RELA */
    }
  }
  if (!symtab || !strtab || !jmprel) return 0;
  for (size_t i = 0; i < pltrelsz / sizeof *jmprel; i++) {
    const ElfW(Rela) *r = &jmprel[i];
    const char *name = strtab + symtab[ELF64_R_SYM(r->r_info)].st_name;
    if (strncmp(name, "PMPI_", 5)) continue;
    void *fn = dlsym(RTLD_DEFAULT, name + 1);   /* "MPI_X" */
    if (!fn || !hrace__pc_in_self((uintptr_t)fn)) continue;   /* not MPI's own MPI_X */
    void **slot = (void **)(info->dlpi_addr + r->r_offset);
    if (*slot == fn) continue;
    int prot = unprotect(info, (uintptr_t)slot, sizeof *slot);
    if (prot < 0) {
      hrace__warn("cannot route the Fortran binding's %s through hrace (mprotect failed): Fortran "
                  "MPI calls of %s are not checked", name + 1, info->dlpi_name);
      return 0;
    }
    __atomic_store_n(slot, fn, __ATOMIC_RELEASE);
    if (prot) {
      uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)slot & ~(pg - 1);
      mprotect((void *)a, (uintptr_t)slot + sizeof *slot - a, prot);
    }
    ++*patched;
  }
  return 0;
}

int hrace__fortran_route(void) {
  int patched = 0;
  const char *off = getenv("HRACE_NO_FORTRAN_ROUTE");
  if (off && *off && strcmp(off, "0")) return 0;
  dl_iterate_phdr(patch_one, &patched);
  return patched;
}

__attribute__((constructor)) static void fortran_route_at_load(void) { hrace__fortran_route(); }
