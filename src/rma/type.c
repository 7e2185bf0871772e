/* Datatype layouts (see type.h).
 *
 * Contiguous types are one range. For any other type we let MPI itself say which bytes it
 * touches instead of re-implementing every type constructor: pack a buffer whose bytes hold
 * their own offsets (one pass per byte of the offset) and read the offsets back from the
 * packed stream. This is exact for every constructor, nesting and resizing, and costs
 * O(extent) per call; only non-contiguous RMA operations pay it. */
#include "rma/type.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int hrace__type_ranges(MPI_Datatype dt, int count, uint64_t **ranges, uint32_t *n) {
  int size, rc;
  MPI_Aint lb, extent, tlb, textent;
  *ranges = NULL;
  *n = 0;
  if ((rc = PMPI_Type_size(dt, &size)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Type_get_extent(dt, &lb, &extent)) != MPI_SUCCESS) return rc;
  if ((rc = PMPI_Type_get_true_extent(dt, &tlb, &textent)) != MPI_SUCCESS) return rc;
  if (count <= 0 || size == 0) return MPI_SUCCESS;
  if ((MPI_Aint)size == textent && (count == 1 || extent == textent)) {
    *ranges = malloc(2 * sizeof(uint64_t));
    if (!*ranges) abort();
    (*ranges)[0] = (uint64_t)tlb;
    (*ranges)[1] = (uint64_t)size * (uint64_t)count;
    *n = 1;
    return MPI_SUCCESS;
  }
  /* Span of the data: from the true lower bound of the first element to the true upper bound
   * of the last. */
  MPI_Aint lo = tlb + (extent < 0 ? (count - 1) * extent : 0);
  MPI_Aint hi = tlb + textent + (extent > 0 ? (count - 1) * extent : 0);
  size_t span = (size_t)(hi - lo), total = (size_t)size * (size_t)count;
  unsigned char *src = malloc(span), *packed = malloc(total);
  uint64_t *off = calloc(total, sizeof *off);
  if (!src || !packed || !off) abort();
  int passes = 1;
  while (passes < 8 && (span >> (8 * passes))) passes++;
  for (int p = 0; p < passes; p++) {
    for (size_t i = 0; i < span; i++) src[i] = (unsigned char)(i >> (8 * p));
    int pos = 0;
    PMPI_Pack(src - lo, count, dt, packed, (int)total, &pos, MPI_COMM_SELF);
    for (size_t i = 0; i < total; i++) off[i] |= (uint64_t)packed[i] << (8 * p);
  }
  free(src);
  free(packed);
  qsort(off, total, sizeof *off, cmp_u64);
  uint64_t *r = malloc(2 * total * sizeof *r);
  if (!r) abort();
  uint32_t k = 0;
  for (size_t i = 0; i < total; i++) {
    uint64_t o = off[i] + (uint64_t)lo;
    if (k && r[2 * (k - 1)] + r[2 * (k - 1) + 1] >= o) {
      uint64_t end = o + 1;
      if (end > r[2 * (k - 1)] + r[2 * (k - 1) + 1]) r[2 * (k - 1) + 1] = end - r[2 * (k - 1)];
    } else {
      r[2 * k] = o;
      r[2 * k + 1] = 1;
      k++;
    }
  }
  free(off);
  *ranges = r;
  *n = k;
  return MPI_SUCCESS;
}

int hrace__type_element_name(MPI_Datatype dt, char *name) {
  int ni, na, nd, combiner, len = 0;
  name[0] = 0;
  if (PMPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner) != MPI_SUCCESS) return -1;
  if (combiner == MPI_COMBINER_NAMED || nd == 0) {
    /* Predefined, or a Fortran parameterised type (MPI_Type_create_f90_*: no constituents). */
    if (PMPI_Type_get_name(dt, name, &len) != MPI_SUCCESS) return -1;
    name[len] = 0;
    return 0;
  }
  int *ints = malloc((ni ? ni : 1) * sizeof *ints);
  MPI_Aint *aints = malloc((na ? na : 1) * sizeof *aints);
  MPI_Datatype *types = malloc(nd * sizeof *types);
  if (!ints || !aints || !types) abort();
  int rc = PMPI_Type_get_contents(dt, ni, na, nd, ints, aints, types) == MPI_SUCCESS ? 0 : -1;
  /* The first constituent decides (they are all the same predefined type in a valid
   * accumulate); the derived ones returned by get_contents are ours to free. */
  if (!rc) rc = hrace__type_element_name(types[0], name);
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
