/* The bytes a (count, datatype) pair touches, relative to the buffer address or target
 * displacement: holes of vector, indexed, struct, subarray and resized types are not
 * accessed and must not be reported. */
#ifndef HRACE_RMA_TYPE_H
#define HRACE_RMA_TYPE_H
#include <mpi.h>
#include <stdint.h>

/* Fills *ranges with n (offset, length) pairs (2n uint64_t; offsets may be "negative" as
 * two's complement for types with a negative lower bound), sorted and coalesced. The caller
 * frees *ranges. Returns 0, or an MPI error code for an invalid datatype. */
int hrace__type_ranges(MPI_Datatype dt, int count, uint64_t **ranges, uint32_t *n);
/* The same, except that a contiguous layout (one range) goes into one[0..2) when `one` is not
 * NULL: *ranges == one then, and the caller does not free it. An RMA call's buffer is nearly
 * always contiguous, and a malloc and free per operation cost ~800 instructions (the
 * interposed allocator, access/alloc.c; bench/README.md "Session 17: origin bookkeeping"). */
int hrace__type_ranges_in(MPI_Datatype dt, int count, uint64_t *one, uint64_t **ranges,
                          uint32_t *n);
/* The predefined datatype a datatype is built from (MPI-3.1 Sec. 11.3.4: an accumulate's
 * target datatype consists of one predefined type), resolved through MPI_Type_get_envelope /
 * MPI_Type_get_contents; its name in `name` (MPI_MAX_OBJECT_NAME bytes). Names, unlike
 * handles, are equal in every process. Returns 0, or -1 if dt is invalid. */
int hrace__type_element_name(MPI_Datatype dt, char *name);
/* The same, and the predefined type's size in *size (if size is not NULL). */
int hrace__type_element(MPI_Datatype dt, char *name, int *size);
#endif
