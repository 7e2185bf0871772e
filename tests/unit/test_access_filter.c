/* Unit tests of the access filter (src/access/filter.h): the gate's bounds (with the slack for
 * accesses that start before a range), ranges found for accesses that straddle a range's end,
 * ranges back to back and nested, growth past the first array, removal narrowing the gate,
 * the compatibility copy, the part of a range no other meets around an access, the page table
 * behind the bounds (bits set with the slack, kept while another range holds a byte of the
 * page, cleared after the last one), and readers that never miss a live range while a writer
 * adds and removes others; the hook called before a window's range leaves. */
#include <pthread.h>
#include <stdlib.h>

#include "access/filter.h"
#include "tap.h"

static char mem[1 << 16];
#define A ((uintptr_t)mem + 4096)

static int owners[300];
#define OW(i) ((void *)&owners[i])

static unsigned find(uintptr_t a, size_t len, hrace_range_t *out) {
  return hrace__filter_find(a, len, out, 8);
}

static void test_basics(void) {
  hrace_range_t r[8];
  ok(!hrace__filter_maybe(A) && !hrace__filter_maybe(0) && !hrace__filter_maybe(UINTPTR_MAX),
     "nothing tracked: every address misses");
  ok(!hrace__filter_maybe_range(A, 1 << 20), "nothing tracked: every range misses");
  is_int(0, find(A, 8, r), "nothing tracked: find finds nothing");

  hrace__filter_add(A, A + 100, HRACE_TRACK_WINDOW, OW(1));
  ok(hrace__filter_maybe(A) && hrace__filter_maybe(A + 99), "first and last byte pass the gate");
  ok(hrace__filter_maybe(A - HRACE_FILTER_SLACK), "an access starting 16 bytes before passes");
  ok(!hrace__filter_maybe(A - HRACE_FILTER_SLACK - 1), "one starting 17 bytes before misses");
  ok(!hrace__filter_maybe(A + 100), "the byte after the range misses");
  ok(hrace__filter_maybe_range(A - 1000, 1001), "a range ending in the first byte passes");
  ok(!hrace__filter_maybe_range(A - 1000, 984), "a range ending before the slack misses");
  ok(!hrace__filter_maybe_range(A + 100, 50), "a range after it misses");

  is_int(1, find(A + 96, 8, r), "an access straddling the end finds the range");
  ok(r[0].lo == A && r[0].hi == A + 100 && r[0].owner == OW(1) && r[0].kind == HRACE_TRACK_WINDOW,
     "with its bounds, owner and kind");
  is_int(1, find(A - 4, 8, r), "an access straddling the start finds it");
  is_int(0, find(A - 8, 8, r), "an access ending at its start does not");
  is_int(0, find(A + 100, 8, r), "an access starting at its end does not");

  /* Back to back, and a buffer inside the window. */
  hrace__filter_add(A + 100, A + 200, HRACE_TRACK_WINDOW, OW(2));
  hrace__filter_add(A + 10, A + 20, HRACE_TRACK_BUFFER, OW(3));
  is_int(2, find(A + 96, 8, r), "an access over the seam of two windows finds both");
  ok(r[0].owner == OW(1) && r[1].owner == OW(2), "in address order");
  is_int(1, find(A + 100, 1, r), "the first byte of the second window finds only it");
  ok(r[0].owner == OW(2), "(the second)");
  is_int(2, find(A + 15, 1, r), "a byte of the nested buffer finds the window and the buffer");
  ok(r[0].owner == OW(1) && r[1].owner == OW(3), "window first (lower start)");
  is_int(3, find(A, 200, r), "a range over everything finds all three");
  is_int(3, hrace__filter_find(A, 200, r, 2), "a short output array still counts all three");

  /* Gaps: the largest stretch around an address that holds no tracked byte. */
  uintptr_t lo, hi;
  unsigned seq;
  hrace__filter_add(A + 300, A + 400, HRACE_TRACK_WINDOW, OW(4));
  ok(hrace__filter_gap(A + 250, &lo, &hi, &seq) && lo == A + 200 && hi == A + 300 && !(seq & 1),
     "the gap between the second and a third window");
  ok(!hrace__filter_gap(A + 150, &lo, &hi, &seq), "no gap inside a window");
  ok(!hrace__filter_gap(A + 19, &lo, &hi, &seq), "nor inside the buffer nested in the first");
  ok(hrace__filter_gap(A + 400, &lo, &hi, &seq) && lo == A + 400 && hi == UINTPTR_MAX,
     "the gap after the last range reaches the top");
  ok(hrace__filter_gap(A - 1, &lo, &hi, &seq) && lo == 0 && hi == A, "and the one before the first, 0");
  unsigned before = seq;
  hrace__filter_remove(OW(4));
  ok(hrace__filter_gap(A + 250, &lo, &hi, &seq) && hi == UINTPTR_MAX && seq != before,
     "a change widens the gap and changes the version");

  hrace__filter_remove(OW(1));
  is_int(1, find(A + 15, 1, r), "after removing the first window the buffer remains");
  ok(r[0].owner == OW(3), "(the buffer)");
  ok(!hrace__filter_maybe(A + 10 - HRACE_FILTER_SLACK - 1) && hrace__filter_maybe(A + 10 - HRACE_FILTER_SLACK),
     "the gate narrowed to the buffer's start");
  ok(hrace__filter_maybe(A + 150), "and still covers the second window");
  hrace__filter_remove(OW(2));
  hrace__filter_remove(OW(3));
  hrace__filter_remove(OW(3));
  ok(!hrace__filter_maybe(A + 15) && !hrace__filter_maybe(A + 150), "all removed: the gate is shut");
  is_int(0, hrace__filter_find(A, 1000, r, 4), "nothing is found any more");
}

/* Removing every range of one kind whose owner is gone, in one pass. */
static int odd_owner(void *owner) { return (((char *)owner - (char *)owners) / sizeof owners[0]) % 2 == 1; }
static void test_remove_if(void) {
  hrace_range_t r[8];
  for (int k = 0; k < 6; k++)
    hrace__filter_add(A + 100 * (uintptr_t)k, A + 100 * (uintptr_t)k + 50, HRACE_TRACK_BUFFER, OW(k));
  hrace__filter_add(A + 1000, A + 1050, HRACE_TRACK_WINDOW, OW(1));   /* odd owner, other kind */
  hrace__filter_remove_if(HRACE_TRACK_BUFFER, odd_owner);
  is_int(4, find(A, 1100, r), "the three odd buffers went, the window of an odd owner stayed");
  ok(r[0].owner == OW(0) && r[1].owner == OW(2) && r[2].owner == OW(4) && r[3].owner == OW(1),
     "the even buffers and the window remain, in address order");
  for (int k = 0; k < 6; k += 2) hrace__filter_remove(OW(k));
  hrace__filter_remove(OW(1));
  is_int(0, find(A, 1100, r), "all removed");
}

/* More ranges than the first array holds, added out of order, some owners with two ranges. */
static void test_many(void) {
  for (int i = 0; i < 200; i++) {
    int k = (i * 37) % 200;
    hrace__filter_add(A + 64 * (uintptr_t)k, A + 64 * (uintptr_t)k + 32, HRACE_TRACK_BUFFER, OW(k / 2));
  }
  hrace_range_t r[8];
  int bad = 0;
  for (int k = 0; k < 200; k++)
    if (find(A + 64 * (uintptr_t)k + 31, 1, r) != 1 || r[0].owner != OW(k / 2) ||
        find(A + 64 * (uintptr_t)k + 32, 32, r) != 0)
      bad++;
  is_int(0, bad, "200 ranges: each found at its last byte, none in the gaps");
  for (int k = 0; k < 100; k += 2) hrace__filter_remove(OW(k));
  bad = 0;
  for (int k = 0; k < 200; k++) {
    unsigned want = (k / 2) % 2 ? 1 : 0;
    if (find(A + 64 * (uintptr_t)k, 1, r) != want) bad++;
  }
  is_int(0, bad, "removing every other owner removes both of its ranges, nothing else");
  for (int k = 1; k < 100; k += 2) hrace__filter_remove(OW(k));
  ok(!hrace__filter_maybe(A), "all gone");
}

/* The part of a window that no other range meets, around an access (the slow path caches it):
 * buffers inside the window, one straddling its end, one outside it, and a nested window. */
static void test_alone(void) {
  hrace_range_t r[8];
  uintptr_t lo, hi;
  unsigned s;
  hrace__filter_add(A, A + 4096, HRACE_TRACK_WINDOW, OW(1));
  hrace__filter_add(A + 1000, A + 1008, HRACE_TRACK_BUFFER, OW(2));
  hrace__filter_add(A + 3000, A + 3016, HRACE_TRACK_BUFFER, OW(3));
  hrace__filter_add(A + 4090, A + 4200, HRACE_TRACK_BUFFER, OW(4));
  hrace__filter_add(A + 5000, A + 5100, HRACE_TRACK_BUFFER, OW(5));
  is_int(1, find(A + 2000, 8, r), "between two buffers only the window");
  ok(hrace__filter_alone(&r[0], A + 2000, 8, &lo, &hi, &s) && lo == A + 1008 && hi == A + 3000,
     "its part is from the first buffer's end to the second's start");
  ok(s == hrace__filter_seq && !(s & 1), "under the current version");
  ok(hrace__filter_alone(&r[0], A + 1008, 1992, &lo, &hi, &s) && lo == A + 1008 && hi == A + 3000,
     "an access filling the part exactly");
  ok(hrace__filter_alone(&r[0], A, 8, &lo, &hi, &s) && lo == A && hi == A + 1000,
     "before the first buffer: from the window's start");
  ok(hrace__filter_alone(&r[0], A + 3016, 8, &lo, &hi, &s) && lo == A + 3016 && hi == A + 4090,
     "after the second: up to the one straddling the window's end");
  ok(!hrace__filter_alone(&r[0], A + 996, 8, &lo, &hi, &s), "an access meeting a buffer: none");
  ok(!hrace__filter_alone(&r[0], A + 4088, 8, &lo, &hi, &s), "nor one meeting the straddling one");
  ok(!hrace__filter_alone(&r[0], A + 4096, 8, &lo, &hi, &s), "nor one past the window");
  hrace__filter_add(A + 2100, A + 2200, HRACE_TRACK_WINDOW, OW(6));   /* nested */
  ok(hrace__filter_alone(&r[0], A + 2000, 8, &lo, &hi, &s) && lo == A + 1008 && hi == A + 2100,
     "a nested range bounds the part too");
  for (int k = 2; k <= 6; k++) hrace__filter_remove(OW(k));
  ok(hrace__filter_alone(&r[0], A + 2000, 8, &lo, &hi, &s) && lo == A && hi == A + 4096,
     "alone again: the whole window");
  hrace__filter_remove(OW(1));
  ok(!hrace__filter_alone(&r[0], A + 2000, 8, &lo, &hi, &s), "gone: none");
}

/* The page table (filter.h): one bit per 4 KiB page holding a tracked byte or the slack before
 * a range. Addresses only: the filter never reads tracked memory, so these need no mapping. */
#define PG ((uintptr_t)1 << HRACE_FILTER_PAGE_BITS)
static void test_pages(void) {
  const uintptr_t P = ((uintptr_t)5 << 30) + 100 * PG;   /* a page-aligned fake address */
  ok(!hrace__filter_page(P) && !hrace__filter_page(0) && !hrace__filter_page(UINTPTR_MAX),
     "nothing tracked: no page bit");
  hrace__filter_add(P + 100, P + 200, HRACE_TRACK_BUFFER, OW(1));
  ok(hrace__filter_page(P) && hrace__filter_page(P + PG - 1), "the range's page: every byte");
  ok(!hrace__filter_page(P - 1) && !hrace__filter_page(P + PG), "the pages around it: none");
  hrace__filter_add(P + PG + 8, P + PG + 16, HRACE_TRACK_BUFFER, OW(2));
  ok(hrace__filter_page(P + PG) && hrace__filter_page(P + PG - 1),
     "a range starting 8 bytes into a page sets the page before too (the slack)");
  hrace__filter_add(P + 3000, P + 3008, HRACE_TRACK_WINDOW, OW(3));   /* the first range's page */
  hrace__filter_remove(OW(1));
  ok(hrace__filter_page(P + 50), "a page keeps its bit while another range holds a byte of it");
  hrace__filter_remove(OW(3));
  ok(hrace__filter_page(P + 50), "... or while another range's slack reaches into it");
  hrace__filter_remove(OW(2));
  ok(!hrace__filter_page(P + 50) && !hrace__filter_page(P + PG), "the last one gone: cleared");
  ok(!hrace__filter_page_range(P, PG) && hrace__filter_page_range(P - PG, 3 * PG),
     "a range access of one page asks its page; one of three pages passes");

  /* Across a leaf (1 GiB) and over whole words of bits, with a second range inside. */
  const uintptr_t L = ((uintptr_t)7 << 30) - 70 * PG;
  hrace__filter_add(L, L + 140 * PG, HRACE_TRACK_WINDOW, OW(4));
  hrace__filter_add(L + 10 * PG + 64, L + 10 * PG + 128, HRACE_TRACK_BUFFER, OW(5));
  int bad = 0;
  for (uintptr_t p = 0; p < 140; p++) bad += !hrace__filter_page(L + p * PG + 5);
  is_int(0, bad, "140 pages over a leaf's end: every bit set");
  ok(!hrace__filter_page(L + 140 * PG) && hrace__filter_page(L - PG) &&
     !hrace__filter_page(L - 2 * PG), "none after them; the page before for the slack, no more");
  hrace__filter_remove(OW(4));
  bad = 0;
  for (uintptr_t p = 0; p < 140; p++) bad += hrace__filter_page(L + p * PG + 5) != (p == 10);
  is_int(0, bad, "the window gone: only the buffer's page keeps its bit");
  hrace__filter_remove(OW(5));
  ok(!hrace__filter_page(L + 10 * PG), "all gone");

  /* remove_if over many ranges sharing pages with kept ones. */
  for (int k = 0; k < 40; k++)
    hrace__filter_add(P + (uintptr_t)k * 300, P + (uintptr_t)k * 300 + 8, HRACE_TRACK_BUFFER, OW(k));
  hrace__filter_remove_if(HRACE_TRACK_BUFFER, odd_owner);
  bad = 0;
  for (int k = 0; k < 40; k += 2) bad += !hrace__filter_page(P + (uintptr_t)k * 300);
  is_int(0, bad, "remove_if keeps the pages of the ranges that stay");
  for (int k = 0; k < 40; k += 2) hrace__filter_remove(OW(k));
  bad = 0;
  for (uintptr_t p = 0; p < 4; p++) bad += hrace__filter_page(P + p * PG);
  is_int(0, bad, "and clears them with the last");
}

/* A reader must find a live range at every moment while a writer adds and removes others
 * around it (the sequence lock, the array's growth, the gate's widening and narrowing). */
static _Atomic int stop, started;
static _Atomic long rounds;
static void *churn(void *arg) {
  atomic_store(&started, 1);
  for (; !atomic_load(&stop); atomic_fetch_add(&rounds, 1)) {
    for (int k = 0; k < 40; k++) {
      uintptr_t lo = k % 2 ? A + 8192 + 64 * (uintptr_t)k : (uintptr_t)mem + 64 * (uintptr_t)k;
      hrace__filter_add(lo, lo + 48, HRACE_TRACK_BUFFER, OW(100 + k));
      if (k % 4 == 0)   /* on the live range's page: its bit must stay through their removal */
        hrace__filter_add(A + 2104 + 50 * (uintptr_t)k, A + 2152 + 50 * (uintptr_t)k,
                          HRACE_TRACK_BUFFER, OW(100 + k));
    }
    for (int k = 0; k < 40; k++) hrace__filter_remove(OW(100 + k));
  }
  return NULL;
}
static void test_readers(void) {
  hrace__filter_add(A + 2000, A + 2100, HRACE_TRACK_WINDOW, OW(250));
  pthread_t th;
  pthread_create(&th, NULL, churn, NULL);
  while (!atomic_load(&started)) {
  }
  long misses = 0, wrong = 0;
  hrace_range_t r[64];
  for (long i = 0; i < 2000000; i++) {
    uintptr_t a = A + 2000 + (uintptr_t)(i % 100);
    if (!hrace__filter_maybe(a) || !hrace__filter_page(a)) misses++;
    unsigned n = hrace__filter_find(a, 1, r, 64);
    if (n != 1 || r[0].owner != OW(250)) wrong++;
  }
  atomic_store(&stop, 1);
  pthread_join(th, NULL);
  ok(atomic_load(&rounds) > 10, "the writer ran %ld rounds of 80 changes meanwhile", atomic_load(&rounds));
  is_int(0, misses,
         "the gate and the page table never shut a live range out while others came and went");
  is_int(0, wrong, "find always returned exactly the live range");
  hrace__filter_remove(OW(250));
}

/* hrace__window_leaving_hook: called once per window range of the removed owner, with its
 * bounds, while the range is still in the filter, and free to add ranges (no lock held); not
 * for a buffer range. */
static uintptr_t seen_lo[4], seen_hi[4];
static unsigned nseen, still_there;
static void leaving(uintptr_t lo, uintptr_t hi) {
  hrace_range_t r[8];
  if (nseen < 4) seen_lo[nseen] = lo, seen_hi[nseen] = hi;
  nseen++;
  unsigned n = find(lo, hi - lo, r);
  for (unsigned i = 0; i < n && i < 8; i++)
    if (r[i].lo == lo && r[i].hi == hi && r[i].kind == HRACE_TRACK_WINDOW) still_there++;
  hrace__filter_add(lo + 8, lo + 16, HRACE_TRACK_BUFFER, OW(11));   /* a buffer takes over */
}

static void test_window_leaving(void) {
  hrace_range_t r[8];
  hrace__window_leaving_hook = leaving;
  hrace__filter_add(A, A + 100, HRACE_TRACK_WINDOW, OW(10));
  hrace__filter_add(A + 200, A + 300, HRACE_TRACK_BUFFER, OW(12));
  hrace__filter_remove(OW(12));
  is_int(0, nseen, "removing a buffer range calls no hook");
  hrace__filter_remove(OW(10));
  is_int(1, nseen, "removing a window calls the hook once");
  ok(seen_lo[0] == A && seen_hi[0] == A + 100, "with the window's bounds");
  is_int(1, still_there, "while the window is still tracked");
  is_int(1, find(A + 10, 1, r), "after: only the range the hook added is there");
  ok(r[0].owner == OW(11) && r[0].kind == HRACE_TRACK_BUFFER, "(the buffer)");
  hrace__filter_remove(OW(11));
  is_int(1, nseen, "its removal calls no hook");
  hrace__window_leaving_hook = NULL;
  is_int(0, hrace__filter_find(A, 1000, r, 8), "nothing left");
}

int main(void) {
  test_basics();
  test_many();
  test_remove_if();
  test_alone();
  test_pages();
  test_window_leaving();
  test_readers();
  return tap_done();
}
