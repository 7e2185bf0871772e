/* Datatype layouts (see type.h).
 *
 * Contiguous types are one range. For any other type we let MPI itself say which bytes it
 * touches instead of re-implementing every type constructor: pack a buffer whose bytes hold
 * their own offsets (one pass per byte of the offset) and read the offsets back from the
 * packed stream. This is exact for every constructor, nesting and resizing, and costs
 * O(extent) per (datatype, count) pair: the result is cached on the datatype itself (MPI
 * attribute caching, MPI-3.1 Sec. 6.7.4: MPI_Type_create_keyval + MPI_Type_set_attr, whose
 * delete callback MPI calls when the type is freed, so a handle reused for another type never
 * finds a stale layout), and each later operation with the same pair copies the ranges out. */
#include "rma/type.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The layouts cached on one datatype: one per element count it was used with, newest first,
 * at most MAX_COUNTS (an application uses a derived type with one or a few counts). */
typedef struct layout {
  struct layout *next;
  int count;
  uint32_t n;
  uint64_t r[];                  /* 2n: (offset, length) pairs */
} layout_t;
typedef struct cache {
  layout_t *first;
} cache_t;
enum { MAX_COUNTS = 4 };

static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;
static int cache_key = MPI_KEYVAL_INVALID;
static int cache_broken;         /* the keyval could not be made: compute every time */

static void layouts_free(layout_t *l) {
  while (l) {
    layout_t *next = l->next;
    free(l);
    l = next;
  }
}

/* MPI_Type_free of a type we cached on. No lock: the attribute is set once per type and never
 * replaced (so MPI calls this only from MPI_Type_free), and freeing a type while another
 * thread still passes it to an MPI call is erroneous. */
static int cache_delete(MPI_Datatype dt, int key, void *val, void *extra) {
  (void)dt, (void)key, (void)extra;
  cache_t *c = val;
  layouts_free(c->first);
  free(c);
  return MPI_SUCCESS;
}

/* Holds cache_mu. The attribute key, or MPI_KEYVAL_INVALID. MPI_TYPE_NULL_COPY_FN: a
 * duplicate (MPI_Type_dup) starts with no cache and fills its own. */
static int cache_keyval(void) {
  if (cache_key == MPI_KEYVAL_INVALID && !cache_broken &&
      PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, cache_delete, &cache_key, NULL) !=
          MPI_SUCCESS) {
    cache_key = MPI_KEYVAL_INVALID;
    cache_broken = 1;
  }
  return cache_key;
}

/* Holds cache_mu. dt's cache (NULL if none); *found its entry for count. */
static cache_t *cache_get(MPI_Datatype dt, int key, int count, layout_t **found) {
  void *val = NULL;
  int flag = 0;
  *found = NULL;
  if (PMPI_Type_get_attr(dt, key, &val, &flag) != MPI_SUCCESS || !flag) return NULL;
  cache_t *c = val;
  for (layout_t *l = c->first; l; l = l->next)
    if (l->count == count) {
      *found = l;
      break;
    }
  return c;
}

static uint64_t *copy_ranges(const uint64_t *r, uint32_t n) {
  uint64_t *c = malloc((n ? 2 * (size_t)n : 1) * sizeof *c);
  if (!c) abort();
  memcpy(c, r, 2 * (size_t)n * sizeof *c);
  return c;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* Add byte offset o to the k ranges (offset, length pairs) of r, extending the last one when o
 * lies in it or right after it; returns the new number of ranges. Offsets come in order. */
static uint32_t add_byte(uint64_t *r, uint32_t k, uint64_t o) {
  if (k && r[2 * (k - 1)] + r[2 * (k - 1) + 1] >= o) {
    uint64_t end = o + 1;
    if (end > r[2 * (k - 1)] + r[2 * (k - 1) + 1]) r[2 * (k - 1) + 1] = end - r[2 * (k - 1)];
    return k;
  }
  r[2 * k] = o;
  r[2 * k + 1] = 1;
  return k + 1;
}

static int flatten(MPI_Datatype dt, int count, MPI_Aint tlb, MPI_Aint textent, MPI_Aint extent,
                   int size, uint64_t **ranges, uint32_t *n);

/* The size and extents of the predefined types this thread used last: their handles name them
 * for the whole run, so an RMA call with MPI_LONG buffers (three per MPI_Compare_and_swap,
 * and its target) asks MPI once, not three times per buffer. */
enum { SHAPES = 8 };
static __thread struct shape {
  MPI_Datatype dt;
  int size;
  MPI_Aint extent, tlb, textent;
} shapes[SHAPES] __attribute__((tls_model("initial-exec")));
static __thread unsigned shape_next __attribute__((tls_model("initial-exec")));

static int shape_of(MPI_Datatype dt, int *size, MPI_Aint *extent, MPI_Aint *tlb, MPI_Aint *textent) {
  for (unsigned i = 0; i < SHAPES; i++)
    if (shapes[i].dt == dt && shapes[i].size) {
      *size = shapes[i].size, *extent = shapes[i].extent;
      *tlb = shapes[i].tlb, *textent = shapes[i].textent;
      return MPI_SUCCESS;
    }
  int rc, ni, na, nd, combiner;
  MPI_Aint lb;
  if ((rc = PMPI_Type_size(dt, size)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Type_get_extent(dt, &lb, extent)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Type_get_true_extent(dt, tlb, textent)) != MPI_SUCCESS) return rc;
  if (*size > 0 && PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
      combiner == MPI_COMBINER_NAMED)
    shapes[shape_next++ % SHAPES] =
        (struct shape){ .dt = dt, .size = *size, .extent = *extent, .tlb = *tlb, .textent = *textent };
  return MPI_SUCCESS;
}

int hrace__type_ranges(MPI_Datatype dt, int count, uint64_t **ranges, uint32_t *n) {
  return hrace__type_ranges_in(dt, count, NULL, ranges, n);
}

int hrace__type_ranges_in(MPI_Datatype dt, int count, uint64_t *one, uint64_t **ranges,
                          uint32_t *n) {
  int size, rc;
  MPI_Aint extent, tlb, textent;
  *ranges = NULL;
  *n = 0;
  if ((rc = shape_of(dt, &size, &extent, &tlb, &textent)) != MPI_SUCCESS) return rc;
  if (count <= 0 || size == 0) return MPI_SUCCESS;
  if ((MPI_Aint)size == textent && (count == 1 || extent == textent)) {
    *ranges = one ? one : malloc(2 * sizeof(uint64_t));
    if (!*ranges) abort();
    (*ranges)[0] = (uint64_t)tlb;
    (*ranges)[1] = (uint64_t)size * (uint64_t)count;
    *n = 1;
    return MPI_SUCCESS;
  }
  /* Only derived types carry the cache (attributes on predefined types are not portable). */
  int ni, na, nd, combiner, key = MPI_KEYVAL_INVALID;
  if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
      combiner != MPI_COMBINER_NAMED) {
    pthread_mutex_lock(&cache_mu);
    key = cache_keyval();
    if (key != MPI_KEYVAL_INVALID) {
      layout_t *hit;
      cache_get(dt, key, count, &hit);
      if (hit) {
        *ranges = copy_ranges(hit->r, hit->n);
        *n = hit->n;
        pthread_mutex_unlock(&cache_mu);
        return MPI_SUCCESS;
      }
    }
    pthread_mutex_unlock(&cache_mu);
  }
  flatten(dt, count, tlb, textent, extent, size, ranges, n);
  if (key == MPI_KEYVAL_INVALID) return MPI_SUCCESS;
  layout_t *l = malloc(sizeof *l + 2 * (size_t)*n * sizeof(uint64_t));
  if (!l) abort();
  l->count = count;
  l->n = *n;
  memcpy(l->r, *ranges, 2 * (size_t)*n * sizeof(uint64_t));
  pthread_mutex_lock(&cache_mu);
  layout_t *hit;
  cache_t *c = cache_get(dt, key, count, &hit);
  if (hit) {
    free(l);                     /* another thread cached the same pair meanwhile */
  } else if (c) {
    /* Newest first; keep at most MAX_COUNTS. */
    l->next = c->first;
    c->first = l;
    unsigned k = 1;
    for (layout_t *p = l; p->next; p = p->next)
      if (++k >= MAX_COUNTS) {
        layouts_free(p->next->next);
        p->next->next = NULL;
        break;
      }
  } else {
    l->next = NULL;
    c = malloc(sizeof *c);
    if (!c) abort();
    c->first = l;
    if (PMPI_Type_set_attr(dt, key, c) != MPI_SUCCESS) {
      free(c);
      free(l);
    }
  }
  pthread_mutex_unlock(&cache_mu);
  return MPI_SUCCESS;
}

static int flatten(MPI_Datatype dt, int count, MPI_Aint tlb, MPI_Aint textent, MPI_Aint extent,
                   int size, uint64_t **ranges, uint32_t *n) {
  /* Span of the data: from the true lower bound of the first element to the true upper bound
   * of the last. */
  MPI_Aint lo = tlb + (extent < 0 ? (count - 1) * extent : 0);
  MPI_Aint hi = tlb + textent + (extent > 0 ? (count - 1) * extent : 0);
  size_t span = (size_t)(hi - lo), total = (size_t)size * (size_t)count;
  int passes = 1;
  while (passes < 8 && (span >> (8 * passes))) passes++;
  unsigned char *src = malloc(span), *packed = malloc(total * (size_t)passes);
  if (!src || !packed) abort();
  /* Pass p marks each byte with byte p of its offset: 0, 1, ..., 255 over again for p = 0,
   * runs of 256^p equal bytes after that, so a copy or a set per 256 or 256^p bytes (a loop
   * per byte was half the time of flattening a transpose's 4 MiB block type). */
  unsigned char ramp[256];
  for (unsigned k = 0; k < 256; k++) ramp[k] = (unsigned char)k;
  for (int p = 0; p < passes; p++) {
    size_t run = (size_t)1 << (8 * p);
    for (size_t i = 0; i < span; i += p ? run : 256) {
      size_t len = span - i < (p ? run : 256) ? span - i : (p ? run : 256);
      if (p) memset(src + i, (unsigned char)(i >> (8 * p)), len);
      else memcpy(src + i, ramp, len);
    }
    int pos = 0;
    PMPI_Pack(src - lo, count, dt, packed + (size_t)p * total, (int)total, &pos, MPI_COMM_SELF);
  }
  free(src);
  /* The offset of packed byte i, from its byte in every pass. */
#define OFFSET(i)                                                                     \
  ({                                                                                  \
    uint64_t o_ = 0;                                                                  \
    for (int p_ = 0; p_ < passes; p_++) o_ |= (uint64_t)packed[(size_t)p_ * total + (i)] << (8 * p_); \
    o_;                                                                               \
  })
  uint64_t *r = malloc(2 * total * sizeof *r);
  if (!r) abort();
  uint32_t k = 0;
  /* Most types list their bytes in increasing order (vectors, indexed blocks with sorted
   * displacements): then the ranges are merged straight from the packed bytes, and only a
   * type that does not is sorted first. */
  unsigned char ramp2[256 + 8];
  for (unsigned k2 = 0; k2 < sizeof ramp2; k2++) ramp2[k2] = (unsigned char)k2;
  size_t i = 0;
  for (uint64_t prev = 0; i < total; i++) {
    /* Eight bytes at once while they continue the last range: their offsets, pass by pass,
     * are a ramp in the low byte and constant above it (no carry within the eight). */
    while (k && i + 8 <= total) {
      uint64_t e = r[2 * (k - 1)] + r[2 * (k - 1) + 1] - (uint64_t)lo;
      int more = (e & 0xFF) <= 248 && !memcmp(packed + i, ramp2 + (e & 0xFF), 8);
      for (int p = 1; more && p < passes; p++) {
        uint64_t w;
        memcpy(&w, packed + (size_t)p * total + i, 8);
        more = w == 0x0101010101010101ull * ((e >> (8 * p)) & 0xFF);
      }
      if (!more) break;
      r[2 * (k - 1) + 1] += 8;
      prev = e + 7;
      i += 8;
    }
    if (i >= total) break;
    uint64_t o = OFFSET(i);
    if (i && o < prev) break;
    prev = o;
    o += (uint64_t)lo;
    k = add_byte(r, k, o);
  }
  if (i < total) {                       /* out of order: all offsets, sorted, then merged */
    uint64_t *off = malloc(total * sizeof *off);
    if (!off) abort();
    for (i = 0; i < total; i++) off[i] = OFFSET(i);
    qsort(off, total, sizeof *off, cmp_u64);
    k = 0;
    for (i = 0; i < total; i++) {
      uint64_t o = off[i] + (uint64_t)lo;
      k = add_byte(r, k, o);
    }
    free(off);
  }
#undef OFFSET
  free(packed);
  *ranges = r;
  *n = k;
  return MPI_SUCCESS;
}

int hrace__type_element_name(MPI_Datatype dt, char *name) { return hrace__type_element(dt, name, NULL); }

int hrace__type_element(MPI_Datatype dt, char *name, int *size) {
  int ni, na, nd, combiner, len = 0;
  name[0] = 0;
  if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return -1;
  if (combiner == MPI_COMBINER_NAMED || nd == 0) {
    /* Predefined, or a Fortran parameterised type (MPI_Type_create_f90_*: no constituents). */
    if (PMPI_Type_get_name(dt, name, &len) != MPI_SUCCESS) return -1;
    name[len] = 0;
    if (size && PMPI_Type_size(dt, size) != MPI_SUCCESS) *size = 0;
    return 0;
  }
  int *ints = malloc((ni ? ni : 1) * sizeof *ints);
  MPI_Aint *aints = malloc((na ? na : 1) * sizeof *aints);
  MPI_Datatype *types = malloc(nd * sizeof *types);
  if (!ints || !aints || !types) abort();
  int rc = PMPI_Type_get_contents(dt, ni, na, nd, ints, aints, types) == MPI_SUCCESS ? 0 : -1;
  /* The first constituent decides (they are all the same predefined type in a valid
   * accumulate); the derived ones returned by get_contents are ours to free. */
  if (!rc) rc = hrace__type_element(types[0], name, size);
  for (int i = 0; i < nd; i++) {
    int e_ni, e_na, e_nd, e_comb;
    if (PMPI_Type_get_envelope(types[i], &e_ni, &e_na, &e_nd, &e_comb) == MPI_SUCCESS &&
        e_comb != MPI_COMBINER_NAMED)
      PMPI_Type_free(&types[i]);
  }
  free(ints);
  free(aints);
  free(types);
  return rc;
}
