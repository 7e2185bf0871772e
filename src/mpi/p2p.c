/* Point-to-point: framing (frame.h) and the clock rules of docs/mpi.md, "Clock rules".
 *
 *   call                     clock action
 *   send, any mode, I-form   signal at the start: the frame carries the clock, then tick
 *   *send_init + Start       signal at each Start
 *   Ssend / Issend           also wait: at completion, join the receiver's clock at the post
 *                            of the receive that matched (posted.h)
 *   receive post             snapshot + tick (the signal a synchronous sender may wait for)
 *   Recv, Mrecv              wait at return: join the frame's clock
 *   Irecv, Imrecv, Recv_init wait at the Wait/Test that completes it (reqtab.h), never earlier
 *   probes                   no edge; the status reports the application's byte count
 *   MPI_PROC_NULL            no message, no edge
 *
 * A call MPI refuses records nothing: sends tick only after the real call succeeded, receives
 * join only what arrived. Arguments MPI would reject (unknown communicator, null datatype,
 * negative count, bad rank or tag) go to MPI unframed so that MPI reports them. */
#include <limits.h>
#include <stdio.h>
#include <sys/resource.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/options.h"
#include "core/poll.h"
#include "mpi/argcheck.h"
#include "mpi/frame.h"
#include "mpi/handlers.h"
#include "mpi/msgrace.h"
#include "mpi/posted.h"
#include "mpi/reqtab.h"
#include "report/report.h"
#include "core/thread.h"

int hrace__hdr_bytes, hrace__wire_inline, hrace__wire_epoch, hrace__wire_bases;
static int tag_ub = 32767;
static int wire_always;         /* option wire=always (testing; see fill_hdr) */
static int dense_fits;          /* wire_len entries fit the frame's inline bytes */
static int fast_path;           /* dense_fits and not wire=always: fill_hdr's first branch */
static int count_plain;         /* hrace__mpi_serial(), read at MPI_Init: see count_dense */
static void stats_fields(char *buf, size_t cap);

void hrace__p2p_init(void) {
  /* The frame's length must be the same at every rank (probes, in-place large receives), so
   * the ranks agree on the wire form as they agree on wire_slots (core/runtime.c). */
  /* {the wire form, its negation, 1 if this rank may make two MPI calls at once}: bases need
   * every rank to make one call at a time (coll.c), and ranks may ask different levels. */
  int mine[3] = { !strcmp(hrace__opt.wire, "always") ? 2 : strcmp(hrace__opt.wire, "dense") != 0, 0,
                  !hrace__mpi_serial() }, all[3];
  mine[1] = -mine[0];
  memcpy(all, mine, sizeof all);
  if (hrace__proc.world_shadow != MPI_COMM_NULL)
    PMPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, hrace__proc.world_shadow);
  if (all[0] != -all[1] && hrace__proc.rank == 0)
    hrace__warn("ranks were given different wire options: all use %s", all[0] == 2 ? "always" : "epoch");
  hrace__wire_epoch = all[0] != 0;
  hrace__wire_bases = hrace__wire_epoch && !all[2];
  count_plain = hrace__mpi_serial();
  wire_always = all[0] == 2;
  int dense = (int)(hrace__proc.wire_len * sizeof(hrace_clk_t));
  hrace__wire_inline = hrace__wire_epoch && dense > HRACE_WIRE_INLINE ? HRACE_WIRE_INLINE : dense;
  hrace__hdr_bytes = (int)sizeof(hrace_hdr_t) + hrace__wire_inline;
  dense_fits = dense <= hrace__wire_inline;
  fast_path = dense_fits && !wire_always;
  hrace__report_set_stats(stats_fields);
  void *v;
  int flag = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
  if (flag) tag_ub = *(int *)v;
}

/* A per-thread scratch buffer for the frames of blocking calls (never held across calls). */
static __thread char *scratch __attribute__((tls_model("initial-exec")));
static char *scratch_buf(void) {
  if (HRACE_UNLIKELY(!scratch)) {
    scratch = malloc(HRACE_FRAME_SMALL);
    if (!scratch) abort();
  }
  return scratch;
}

typedef struct tinfo { int size; long long bytes; int contig; } tinfo_t;

/* The steps of a blocking send or receive, inlined into it: their calls and frames were a
 * tenth of hrace's instructions per message. */
#define HOT static inline __attribute__((always_inline))

/* Size and contiguity of a datatype: three PMPI queries, or none for a named (predefined)
 * type seen before by this thread. A named type's handle denotes that type for the whole run,
 * and a derived type's handle can never equal it, so such entries never go stale; derived
 * types are queried at every call (a freed handle may come back as another type), their
 * entries only spare the envelope query. Thread-local: no lock. The three queries were ~2 %
 * of a send + receive of one MPI_INT to self (perf), three times per message. */
#define TCACHE 8
static __thread struct tcache {
  MPI_Datatype t;
  int size;
  unsigned char named, contig1, contign;   /* contiguous for count <= 1 / for any count */
} tcache[TCACHE] __attribute__((tls_model("initial-exec")));

static unsigned tslot(MPI_Datatype t) {
  uint64_t k = 0;
  memcpy(&k, &t, sizeof t < sizeof k ? sizeof t : sizeof k);
  return (unsigned)((k >> 4) ^ (k >> 9)) & (TCACHE - 1);
}

static void type_fill(const struct tcache *e, int count, tinfo_t *ti) {
  ti->size = e->size;
  ti->bytes = (long long)e->size * count;
  ti->contig = count <= 1 ? e->contig1 : e->contign;
}

static __attribute__((noinline)) int type_query(MPI_Datatype t, int count, tinfo_t *ti,
                                                struct tcache *e) {
  MPI_Aint lb, ext, tlb, text;
  int size;
  if (PMPI_Type_size(t, &size) != MPI_SUCCESS) return -1;
  PMPI_Type_get_extent(t, &lb, &ext);
  PMPI_Type_get_true_extent(t, &tlb, &text);
  int named = 0;
  if (e->t != t) {
    int ni, na, nd, comb;
    named = PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
            comb == MPI_COMBINER_NAMED;
    e->t = t;
  }
  e->named = (unsigned char)named;
  e->size = size;
  e->contig1 = tlb == 0 && text == size;
  e->contign = e->contig1 && ext == size;
  type_fill(e, count, ti);
  return 0;
}

static inline int type_info(MPI_Datatype t, int count, tinfo_t *ti) {
  struct tcache *e = &tcache[tslot(t)];
  if (HRACE_UNLIKELY(e->t != t || !e->named)) return type_query(t, count, ti, e);
  type_fill(e, count, ti);
  return 0;
}

/* Could MPI accept these arguments? If not, hrace stays out of the way. */
HOT hrace_comm_t *checked(const hrace_p2p_t *a, int recv, tinfo_t *ti) {
  hrace_comm_t *rec = hrace__comm_of(a->comm);
  if (!rec || a->count < 0 || a->type == MPI_DATATYPE_NULL) return NULL;
  int np = hrace__comm_peers(rec);
  if (a->peer < 0 ? !(recv && a->peer == MPI_ANY_SOURCE) : a->peer >= np) return NULL;
  if (a->tag < 0 ? !(recv && a->tag == MPI_ANY_TAG) : a->tag > tag_ub) return NULL;
  if (type_info(a->type, a->count, ti)) return NULL;
  if (ti->bytes > INT_MAX - hrace__hdr_bytes) return NULL;   /* too big to frame in an int count */
  return rec;
}

/* ---- the clock's tail ----------------------------------------------------------------------
 * A frame carries the first wire_len entries of the sender's clock: one per rank by default
 * (option wire_slots), which is the whole clock up to MPI_THREAD_FUNNELED. Under SERIALIZED and
 * MULTIPLE a clock has an entry for every exporter slot of every rank, but the entries of
 * slots no thread has used are zero; so the rest of the clock, up to its last non-zero entry,
 * goes only when there is one, in a second message on the communicator's shadow, sent before
 * the frame, with a tag made from the send's id (h->sync_id, flag MORE). The receiver waits
 * for it from the frame's sender when the frame has arrived (wait_tail): it is already there
 * or on its way, since the sender posted it first and the transports deliver one
 * pair's messages in order; it fits every eager limit we know (at most 4 KiB under the default
 * clock_budget), so its delivery never waits for the sender to make another MPI call. Clock
 * bytes thus grow with the exporters in use, not with ranks x threads (bench/README.md). The
 * tail is sent dense (a count, then entries from wire_len on) or, when fewer than half its
 * entries are non-zero, sparse (pairs of index and value). */
#define TAIL_SPARSE 0x80000000u
#define TAIL_TAG0 0x6873   /* above coll.c's exchange tag on the shadow */

static _Atomic unsigned long tails_sent, tail_bytes;

/* Clock bytes of the frames this process sent (`hrace run --stats`): frames with a clock, the
 * bytes their clocks needed (the encoding, or the dense entries and their tail) and the most
 * one needed. A frame of dense entries alone, the ping-pong's, costs one increment (plain
 * while the application makes one MPI call at a time: no atomic instruction on that path);
 * its bytes are known (wire_len entries). The other kinds count on their own, colder, paths. */
static struct {
  _Alignas(64) _Atomic unsigned long dense, msgs, used, used_max;
  char pad[64 - 4 * sizeof(unsigned long)];
} clk_stats;
static inline void count_dense(void) {
  if (HRACE_LIKELY(count_plain))
    atomic_store_explicit(&clk_stats.dense,
                          atomic_load_explicit(&clk_stats.dense, memory_order_relaxed) + 1,
                          memory_order_relaxed);
  else
    atomic_fetch_add_explicit(&clk_stats.dense, 1, memory_order_relaxed);
}
static HRACE_COLD void count_clock(unsigned long used) {
  atomic_fetch_add_explicit(&clk_stats.msgs, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&clk_stats.used, used, memory_order_relaxed);
  unsigned long mx = atomic_load_explicit(&clk_stats.used_max, memory_order_relaxed);
  while (used > mx && !atomic_compare_exchange_weak_explicit(&clk_stats.used_max, &mx, used,
                                                             memory_order_relaxed,
                                                             memory_order_relaxed)) {}
}

void hrace__p2p_stats(hrace_wire_stats_t *w) {
  unsigned long dense = atomic_load(&clk_stats.dense), d = hrace__proc.wire_len * sizeof(hrace_clk_t);
  w->msgs = atomic_load(&clk_stats.msgs) + dense;
  w->used = atomic_load(&clk_stats.used) + dense * d;
  w->used_max = atomic_load(&clk_stats.used_max);
  if (dense && d > w->used_max) w->used_max = d;
  w->tails = atomic_load(&tails_sent);
  w->tail_bytes = atomic_load(&tail_bytes);
  w->inline_bytes = (unsigned long)hrace__wire_inline;
}

/* The summary record's fields (report.h): clock bytes of point-to-point frames (wire: what
 * the frames' clock bytes and tails took; need: what the clocks needed of it), of collective
 * exchanges, and this process's memory: its peak resident size (the application's included:
 * getrusage) and the bases it keeps. */
static HRACE_COLD void stats_fields(char *buf, size_t cap) {
  hrace_wire_stats_t w;
  unsigned long cn, cb;
  hrace__p2p_stats(&w);
  hrace__coll_counts(&cn, &cb);
  struct rusage ru;
  long rss = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
  snprintf(buf, cap, ",\"wire\":\"%s\",\"clock_entries\":%u,\"clock_msgs\":%lu,"
           "\"clock_wire_bytes\":%lu,\"clock_need_bytes\":%lu,\"clock_need_max\":%lu,"
           "\"clock_tails\":%lu,\"coll_xchg\":%lu,\"coll_clock_bytes\":%lu,"
           "\"mem_peak_kb\":%ld,\"base_bytes\":%zu",
           hrace__wire_epoch ? "epoch" : "dense", hrace__clock_len(), w.msgs,
           w.msgs * w.inline_bytes + w.tail_bytes, w.used, w.used_max, w.tails, cn, cb, rss,
           hrace__base_bytes());
}

void hrace__p2p_fini(void) {
  hrace__note("clock tails sent: %lu (%lu bytes); frames carry %d clock bytes (%s) of a clock of "
              "%u entries", atomic_load(&tails_sent), atomic_load(&tail_bytes),
              hrace__wire_inline, hrace__wire_epoch ? "wire=epoch" : "wire=dense",
              hrace__clock_len());
}

static int tail_tag(uint32_t id) { return TAIL_TAG0 + (int)(id % (uint32_t)(tag_ub - TAIL_TAG0 + 1)); }

/* Send the bytes of o's frame to peer of rec as a tail, as an orphan (reqtab.h): nobody waits
 * for it. */
static HRACE_COLD int send_tail_bytes(const hrace_comm_t *rec, int peer, uint32_t id, hrace_rs_t *o,
                                      size_t bytes) {
  MPI_Request r;
  if (PMPI_Isend(o->frame, (int)bytes, MPI_BYTE, peer, tail_tag(id), rec->shadow, &r) != MPI_SUCCESS) {
    hrace__rs_free(o);
    static int warned;
    if (!warned++) hrace__warn("could not send a clock's tail: its receiver may report false races");
    return 0;
  }
  o->started = 1;
  hrace__rs_orphan(r, o);
  atomic_fetch_add_explicit(&tails_sent, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&tail_bytes, bytes, memory_order_relaxed);
  return 1;
}

/* Send entries [wire_len, m) of c to peer of rec. Returns the tail's bytes, 0 if not sent. */
static HRACE_COLD size_t send_tail(const hrace_comm_t *rec, int peer, uint32_t id, const hrace_clk_t *c,
                                   uint32_t m) {
  uint32_t w = hrace__proc.wire_len, nz = 0;
  for (uint32_t i = w; i < m; i++) nz += c[i] != 0;
  int sparse = 2 * nz < m - w;
  size_t words = 1 + (sparse ? 2 * nz : m - w);
  hrace_rs_t *o = hrace__rs_new(HRACE_RS_SEND);
  uint32_t *b = hrace__rs_frame(o, words * 4);
  if (!b) abort();
  b[0] = sparse ? TAIL_SPARSE | nz : m - w;
  size_t k = 1;
  for (uint32_t i = w; i < m; i++)
    if (!sparse) b[k++] = c[i];
    else if (c[i]) b[k++] = i, b[k++] = c[i];
  return send_tail_bytes(rec, peer, id, o, words * 4) ? words * 4 : 0;
}

/* Receive a tail. It is almost always there already (sent before its frame), so the first
 * test completes; a tail that never came would otherwise be a silent hang, so a wait of
 * seconds says so (once per process). */
typedef struct tail_wait { int src, tag; const hrace_comm_t *rec; } tail_wait_t;
static void tail_late(const void *arg) {
  const tail_wait_t *w = arg;
  static _Atomic int warned;
  if (!atomic_exchange(&warned, 1))
    hrace__warn("a receive has waited 10 s for the clock tail of its message from rank %d "
                "(tag %d on the shadow of communicator %u); still waiting", w->src, w->tag,
                w->rec->id);
}
static int wait_tail(void *b, int bytes, int src, int tag, const hrace_comm_t *rec, MPI_Status *ts) {
  MPI_Request r;
  int rc = PMPI_Irecv(b, bytes, MPI_BYTE, src, tag, rec->shadow, &r);
  if (rc != MPI_SUCCESS) return rc;
  tail_wait_t w = { src, tag, rec };
  return hrace__poll_wait(&r, ts, tail_late, &w);
}

/* The arrived frame h, completed with its tail: a header of this thread's (flag FULL) whose
 * clock has hrace__clock_len() entries. On failure h itself, which has the first wire_len. */
static HRACE_COLD const hrace_hdr_t *recv_tail(const hrace_comm_t *rec, const hrace_hdr_t *h,
                                               const MPI_Status *st) {
  static __thread hrace_hdr_t *full;
  uint32_t w = hrace__proc.wire_len, n = hrace__clock_len();
  size_t tail_words = 1 + (size_t)(n - w);
  if (!full && !(full = malloc(sizeof *full + (n + tail_words) * sizeof(hrace_clk_t)))) abort();
  uint32_t *b = full->clk + n;
  MPI_Status ts;
  int rc = wait_tail(b, (int)(tail_words * 4), st->MPI_SOURCE, tail_tag(h->sync_id), rec, &ts);
  int got = rc == MPI_SUCCESS ? hrace__status_bytes(&ts) : 0;
  uint32_t cnt = got >= 4 ? b[0] & ~TAIL_SPARSE : 0;
  int sparse = got >= 4 && (b[0] & TAIL_SPARSE);
  if (got < 4 || (size_t)got != 4 * (1 + (size_t)cnt * (sparse ? 2 : 1)) || cnt > n - w) {
    static int warned;
    if (!warned++) hrace__warn("a clock's tail did not arrive whole: this receive may report false races");
    return h;
  }
  full->word = h->word | HRACE_HDR_FULL, full->sync_id = h->sync_id, full->site = h->site;
  hrace__copy(full->clk, h->clk, w * sizeof(hrace_clk_t));
  memset(full->clk + w, 0, (n - w) * sizeof(hrace_clk_t));
  for (uint32_t i = 0; i < cnt; i++)
    if (!sparse) full->clk[w + i] = b[1 + i];
    else if (b[1 + 2 * i] >= w && b[1 + 2 * i] < n) full->clk[b[1 + 2 * i]] = b[2 + 2 * i];
  return full;
}

/* ---- clocks relative to a base (wire=epoch; docs/mpi.md, "Clocks relative to a base") -----
 * The sender encodes its whole clock against the latest base it holds (coll.c), naming it,
 * always with the receiver's own entry (see decode_frame), and sends the encoding in the
 * frame's inline bytes when it fits, else whole in the tail message. Only where it pays: when
 * the dense entries do not fit the inline bytes (more than HRACE_WIRE_INLINE / 4 of them), or
 * when they do but the clock has entries beyond them (a tail the encoding may spare). A frame
 * of a fixed length carries dense entries that fit at no cost beyond today's, so small jobs
 * keep the dense frame and its speed; wire=always (testing) encodes every frame it can, so
 * that small jobs exercise the encoding too. A thread-local buffer holds the encoding. */
static __thread uint8_t *encbuf;
static HRACE_COLD uint8_t *enc_alloc(void) {
  if (!(encbuf = malloc(HRACE_VC_ENC_MAX(hrace__clock_len()) + sizeof(hrace_hdr_t)))) abort();
  return encbuf;
}

/* Encode clock c (n entries) for peer of rec into encbuf; returns its length. */
static HRACE_COLD size_t encode(const hrace_comm_t *rec, int peer, const hrace_clk_t *c, uint32_t n) {
  const hrace_clk_t *base = NULL;
  uint32_t num = hrace__base_latest(&base);
  int dest = num ? hrace__comm_peer_world(rec, peer) : -1;
  uint8_t *b = encbuf ? encbuf : enc_alloc();
  return hrace__vc_encode(b, num, c, n, base, num ? hrace__clock_len() : 0,
                          dest >= 0 ? (uint32_t)dest : UINT32_MAX);
}

/* The clock of an active send into h when its dense entries do not fit the inline bytes:
 * flags ENC [| MORE] returned, or ~0u when the tail could not go (no clock then). */
static HRACE_COLD unsigned fill_enc(hrace_hdr_t *h, const hrace_comm_t *rec, int peer, int sync, uint32_t *sync_id) {
  const hrace_vc_t *v = hrace__signal_clock();
  uint32_t n = hrace__clock_len();
  size_t len = encode(rec, peer, v->c, v->n < n ? v->n : n);
  if (HRACE_LIKELY(len <= (size_t)hrace__wire_inline)) {
    hrace__copy(h->clk, encbuf, len);
    count_clock(len);
    return HRACE_HDR_ENC;
  }
  if (!sync) *sync_id = hrace__ssend_next_id();
  hrace_rs_t *o = hrace__rs_new(HRACE_RS_SEND);
  void *t = hrace__rs_frame(o, len);
  if (!t) abort();
  memcpy(t, encbuf, len);
  if (!send_tail_bytes(rec, peer, *sync_id, o, len)) return ~0u;
  count_clock(len);
  return HRACE_HDR_ENC | HRACE_HDR_MORE;
}

/* The dense entries are in h (a clock of n entries at c): encode instead when that fits. */
static HRACE_COLD int enc_inline(hrace_hdr_t *h, const hrace_comm_t *rec, int peer,
                                 const hrace_clk_t *c, uint32_t n) {
  size_t len = encode(rec, peer, c, n);
  if (len > (size_t)hrace__wire_inline) return 0;
  hrace__copy(h->clk, encbuf, len);
  count_clock(len);
  return 1;
}

/* The clock's flags for a frame whose dense entries are in h and whose clock has entries
 * beyond them (m: its length): encoded in the frame if that fits, else the tail. */
static HRACE_COLD unsigned fill_tail(hrace_hdr_t *h, const hrace_comm_t *rec, int peer, int sync,
                                     uint32_t *sync_id, const hrace_clk_t *all, uint32_t m) {
  if (hrace__wire_epoch && enc_inline(h, rec, peer, all, m)) return HRACE_HDR_ENC;
  if (!sync) *sync_id = hrace__ssend_next_id();
  size_t tail = send_tail(rec, peer, *sync_id, all, m);
  count_clock(hrace__proc.wire_len * sizeof(hrace_clk_t) + tail);
  return tail ? HRACE_HDR_MORE : 0;
}

/* The clock of a frame when the dense entries do not fit its inline bytes, or wire=always:
 * flags, or ~0u for no clock. */
static HRACE_COLD unsigned fill_slow(hrace_hdr_t *h, const hrace_comm_t *rec, int peer, int active,
                                     int sync, uint32_t *sync_id) {
  if (!dense_fits) return active ? fill_enc(h, rec, peer, sync, sync_id) : ~0u;
  const hrace_clk_t *all;
  uint32_t m = hrace__signal_clock_wire(h->clk, &all), w = hrace__proc.wire_len;
  if (!active) return ~0u;
  if (m) return fill_tail(h, rec, peer, sync, sync_id, all, m);
  if (enc_inline(h, rec, peer, h->clk, w)) return HRACE_HDR_ENC;
  count_dense();
  return 0;
}

/* The frame's header: the sender's clock, and its tail sent ahead to peer of rec. The fast
 * path is wire=dense's, and the only one up to 16 ranks: the encoding's paths are out of line
 * (inlined, they took the 4-byte send and receive to self from 4.5 to 7.2 million I1 misses
 * per 30000, cachegrind, and 1.13x the CPU time). */
HOT void fill_hdr(hrace_hdr_t *h, const hrace_comm_t *rec, int peer, int active, int sync,
                  uint32_t sync_id, uint32_t site) {
  unsigned more = 0;
  if (HRACE_LIKELY(fast_path)) {
    const hrace_clk_t *all;
    uint32_t m = hrace__signal_clock_wire(h->clk, &all);
    if (HRACE_UNLIKELY(m) && active) more = fill_tail(h, rec, peer, sync, &sync_id, all, m);
    else if (active) count_dense();
  } else {
    unsigned f = fill_slow(h, rec, peer, active, sync, &sync_id);
    if (f == ~0u) active = 0;   /* no clock: an inactive send, or a tail that could not go */
    else more = f;
  }
  h->word = HRACE_FRAME_MAGIC << 8 | (active ? HRACE_HDR_CLOCK : 0) | (sync ? HRACE_HDR_SYNC : 0) | more;
  h->sync_id = sync_id;
  h->site = site;
}

/* The struct type {header bytes at hdr, count x type at buf}, committed. */
static MPI_Datatype frame_type(void *hdr, void *buf, int count, MPI_Datatype t) {
  int len[2] = { hrace__hdr_bytes, count };
  MPI_Aint disp[2];
  MPI_Datatype types[2] = { MPI_BYTE, t }, ft;
  disp[0] = (MPI_Aint)(uintptr_t)hdr;   /* MPI_Get_address, without its read of the buffer */
  disp[1] = (MPI_Aint)(uintptr_t)buf;
  PMPI_Type_create_struct(2, len, disp, types, &ft);
  PMPI_Type_commit(&ft);
  return ft;
}

/* ---- sends ------------------------------------------------------------------------------- */

/* Pack data behind the header already at frame; returns the frame's bytes. */
static int pack(char *frame, const void *buf, int count, MPI_Datatype t, const tinfo_t *ti,
                MPI_Comm comm, int cap) {
  int pos = hrace__hdr_bytes;
  if (ti->contig) {
    if (ti->bytes) hrace__copy(frame + pos, buf, (size_t)ti->bytes);
    return pos + (int)ti->bytes;
  }
  PMPI_Pack(buf, count, t, frame, cap, &pos, comm);
  return pos;
}

static int real_send(int kind, int mode, const void *b, int n, MPI_Datatype t, int peer, int tag,
                     MPI_Comm comm, MPI_Request *req) {
  switch (kind * 4 + mode) {
  case HRACE_P2P_SEND * 4 + HRACE_MODE_STD: return PMPI_Send(b, n, t, peer, tag, comm);
  case HRACE_P2P_SEND * 4 + HRACE_MODE_B: return PMPI_Bsend(b, n, t, peer, tag, comm);
  case HRACE_P2P_SEND * 4 + HRACE_MODE_S: return PMPI_Ssend(b, n, t, peer, tag, comm);
  case HRACE_P2P_SEND * 4 + HRACE_MODE_R: return PMPI_Rsend(b, n, t, peer, tag, comm);
  case HRACE_P2P_ISEND * 4 + HRACE_MODE_STD: return PMPI_Isend(b, n, t, peer, tag, comm, req);
  case HRACE_P2P_ISEND * 4 + HRACE_MODE_B: return PMPI_Ibsend(b, n, t, peer, tag, comm, req);
  case HRACE_P2P_ISEND * 4 + HRACE_MODE_S: return PMPI_Issend(b, n, t, peer, tag, comm, req);
  case HRACE_P2P_ISEND * 4 + HRACE_MODE_R: return PMPI_Irsend(b, n, t, peer, tag, comm, req);
  case HRACE_P2P_SEND_INIT * 4 + HRACE_MODE_STD: return PMPI_Send_init(b, n, t, peer, tag, comm, req);
  case HRACE_P2P_SEND_INIT * 4 + HRACE_MODE_B: return PMPI_Bsend_init(b, n, t, peer, tag, comm, req);
  case HRACE_P2P_SEND_INIT * 4 + HRACE_MODE_S: return PMPI_Ssend_init(b, n, t, peer, tag, comm, req);
  default: return PMPI_Rsend_init(b, n, t, peer, tag, comm, req);
  }
}

static int raw(hrace_p2p_t *a) {
  switch (a->kind) {
  case HRACE_P2P_SEND: case HRACE_P2P_ISEND: case HRACE_P2P_SEND_INIT:
    return real_send(a->kind, a->mode, a->buf, a->count, a->type, a->peer, a->tag, a->comm, a->req);
  case HRACE_P2P_RECV: return PMPI_Recv(a->buf, a->count, a->type, a->peer, a->tag, a->comm, a->status);
  case HRACE_P2P_IRECV: return PMPI_Irecv(a->buf, a->count, a->type, a->peer, a->tag, a->comm, a->req);
  case HRACE_P2P_RECV_INIT: return PMPI_Recv_init(a->buf, a->count, a->type, a->peer, a->tag, a->comm, a->req);
  case HRACE_P2P_MRECV: return PMPI_Mrecv(a->buf, a->count, a->type, a->msg, a->status);
  case HRACE_P2P_IMRECV: return PMPI_Imrecv(a->buf, a->count, a->type, a->msg, a->req);
  case HRACE_P2P_PROBE: return PMPI_Probe(a->peer, a->tag, a->comm, a->status);
  case HRACE_P2P_IPROBE: return PMPI_Iprobe(a->peer, a->tag, a->comm, a->flag, a->status);
  case HRACE_P2P_MPROBE: return PMPI_Mprobe(a->peer, a->tag, a->comm, a->msg, a->status);
  default: return PMPI_Improbe(a->peer, a->tag, a->comm, a->flag, a->msg, a->status);
  }
}

/* Build the frame of a send into state s (persistent and non-blocking) or scratch (blocking).
 * Returns the (buf, count, type) to hand MPI. A persistent send's frame is filled at each
 * Start, but its site is the caller chain of the *_init call, kept in the header now. */
typedef struct wire { void *buf; int count; MPI_Datatype type; } wire_t;

HOT wire_t frame_send(hrace_p2p_t *a, const hrace_comm_t *rec, const tinfo_t *ti, hrace_rs_t *s,
                      int sync, uint32_t id, int fill) {
  int H = hrace__hdr_bytes;
  wire_t w;
  /* MPI_BOTTOM (NULL) with absolute addresses goes by the struct type: MPICH's MPI_Pack
   * refuses a NULL input buffer. */
  if (H + ti->bytes <= HRACE_FRAME_SMALL && a->buf) {
    char *f = s ? (s->frame ? s->frame : hrace__rs_frame(s, H + ti->bytes + 1)) : scratch_buf();
    if (!f) abort();
    int bytes = H + (int)ti->bytes;
    uint32_t site = hrace__send_site(a->pc, a->fn);
    if (fill) {
      fill_hdr((hrace_hdr_t *)f, rec, a->peer, a->active, sync, id, site);
      bytes = pack(f, a->buf, a->count, a->type, ti, a->comm, H + (int)ti->bytes);
    } else {
      ((hrace_hdr_t *)f)->site = site;
    }
    if (s) s->fbytes = bytes;
    w = (wire_t){ f, bytes, MPI_PACKED };
  } else {
    hrace_hdr_t *h = s ? (s->frame ? s->frame : hrace__rs_frame(s, H)) : (void *)scratch_buf();
    if (!h) abort();
    uint32_t site = hrace__send_site(a->pc, a->fn);
    if (fill) fill_hdr(h, rec, a->peer, a->active, sync, id, site);
    else h->site = site;
    MPI_Datatype ft = frame_type(h, a->buf, a->count, a->type);
    if (s) s->ftype = ft;
    w = (wire_t){ MPI_BOTTOM, 1, ft };
  }
  return w;
}

static int do_send(hrace_p2p_t *a) {
  tinfo_t ti;
  hrace_comm_t *rec = a->peer == MPI_PROC_NULL ? NULL : checked(a, 0, &ti);
  if (!rec) return raw(a);
  int sync = a->mode == HRACE_MODE_S;
  uint32_t id = sync ? hrace__ssend_next_id() : 0;
  hrace__rs_poll_orphans(0);
  if (a->kind == HRACE_P2P_SEND) {
    wire_t w = frame_send(a, rec, &ti, NULL, sync, id, 1);
    int rc = a->mode == HRACE_MODE_STD
                 ? PMPI_Send(w.buf, w.count, w.type, a->peer, a->tag, a->comm)
                 : real_send(a->kind, a->mode, w.buf, w.count, w.type, a->peer, a->tag, a->comm, NULL);
    if (w.type != MPI_PACKED) PMPI_Type_free(&w.type);
    if (rc != MPI_SUCCESS) return rc;
    if (a->active) {
      hrace__signal_done(a->fn);
      if (sync) hrace__ssend_fetch(rec, a->peer, a->tag, id, a->fn);
    }
    return rc;
  }
  hrace_rs_t *s = hrace__rs_new(HRACE_RS_SEND);
  s->rec = rec, s->fn = a->fn, s->buf = a->buf, s->count = a->count, s->type = a->type;
  s->peer = a->peer, s->tag = a->tag, s->mode = a->mode, s->pc = a->pc, s->active = a->active;
  s->persistent = a->kind == HRACE_P2P_SEND_INIT;
  s->sync_id = id;
  wire_t w = frame_send(a, rec, &ti, s, sync, id, !s->persistent);
  int rc = real_send(a->kind, a->mode, w.buf, w.count, w.type, a->peer, a->tag, a->comm, a->req);
  if (rc != MPI_SUCCESS) {
    hrace__rs_free(s);
    return rc;
  }
  s->started = !s->persistent;
  if (a->active && !s->persistent) hrace__rs_buffers(s, a->buf, a->count, a->type, 0);
  hrace__rs_put(*a->req, s);
  if (a->active && !s->persistent) hrace__signal_done(a->fn);
  return rc;
}

/* MPI_Start of a persistent send: refresh the frame (data and clock at this start). */
void hrace__p2p_start_send(hrace_rs_t *s, int active) {
  int H = hrace__hdr_bytes;
  hrace_p2p_t a = { .fn = s->fn, .buf = s->buf, .count = s->count, .type = s->type,
                    .comm = s->rec->comm, .active = active, .pc = s->pc };
  if (s->mode == HRACE_MODE_S) s->sync_id = hrace__ssend_next_id();
  hrace_hdr_t *h = s->frame;
  fill_hdr(h, s->rec, s->peer, active, s->mode == HRACE_MODE_S, s->sync_id, h->site);
  if (s->ftype == MPI_DATATYPE_NULL) {
    tinfo_t ti;
    type_info(s->type, s->count, &ti);
    s->fbytes = pack(s->frame, a.buf, a.count, a.type, &ti, a.comm, H + (int)ti.bytes);
  }
  s->active = active;
}

/* ---- receives ---------------------------------------------------------------------------- */

HOT wire_t frame_recv(void *buf, int count, MPI_Datatype t, const tinfo_t *ti, hrace_rs_t *s) {
  int H = hrace__hdr_bytes;
  if (H + ti->bytes <= HRACE_FRAME_SMALL && buf) {   /* MPI_BOTTOM: as in frame_send */
    char *f = s ? hrace__rs_frame(s, H + ti->bytes + 1) : scratch_buf();
    if (!f) abort();
    return (wire_t){ f, H + (int)ti->bytes, MPI_PACKED };
  }
  void *h = s ? hrace__rs_frame(s, H) : scratch_buf();
  if (!h) abort();
  MPI_Datatype ft = frame_type(h, buf, count, t);
  if (s) s->ftype = ft;
  return (wire_t){ MPI_BOTTOM, 1, ft };
}

/* A frame arrived in wire w for (buf, count, type): unpack, fix the status to count the
 * application's bytes, and return the header (NULL if the message was not framed). Only a
 * request can be cancelled (MPI-3.1 Sec. 3.8.4): blocking receives pass may_cancel 0. ti:
 * the type's info if the caller has it (else NULL); fix_status 0 when nobody reads st's
 * count (the application passed MPI_STATUS_IGNORE to a blocking receive). */
HOT const hrace_hdr_t *unframe(const wire_t *w, void *hdrbuf, void *buf, int count,
                               MPI_Datatype t, const tinfo_t *ti, MPI_Comm comm, MPI_Status *st,
                               int may_cancel, int fix_status) {
  int got = 0, H = hrace__hdr_bytes, cancelled = 0;
  if (may_cancel) cancelled = hrace__status_cancelled(st);
  if (cancelled || st->MPI_SOURCE == MPI_PROC_NULL) return NULL;
  got = hrace__status_bytes(st);
  const hrace_hdr_t *h = hdrbuf;
  if (got == MPI_UNDEFINED || got < H || h->word >> 8 != HRACE_FRAME_MAGIC) {
    static int warned;
    if (!warned++)
      hrace__warn("a message without hrace's header arrived (is every rank running under "
                  "hrace?): its data may be misplaced and it orders nothing");
    return NULL;
  }
  int data = got - H;
  if (w->type == MPI_PACKED && data > 0) {
    tinfo_t mine;
    if (!ti) {
      type_info(t, count, &mine);
      ti = &mine;
    }
    if (ti->contig) {
      hrace__copy(buf, (char *)w->buf + H, (size_t)data);
    } else {
      int pos = H, n = ti->size ? data / ti->size : count;
      PMPI_Unpack(w->buf, got, &pos, buf, n, t, comm);
    }
  }
  if (fix_status) PMPI_Status_set_elements(st, MPI_BYTE, data);
  return h;
}

/* An encoded clock (flag ENC) decoded: a header of this thread's (flag FULL) with
 * hrace__clock_len() entries. The sender encoded against base num; this process holds it
 * (coll.c: always, unless it dropped it since), and then the decoding is exact. A base it
 * dropped: the message was sent before the sender started the next base's collective, whose
 * exchange carried a clock that knew the message's (each rank's own entry is the most anyone
 * knows of it), so the receiver, having finished that collective and kept a later base B',
 * knows every entry of the message's clock already if its context knows B'. The entries,
 * coded against the base, are then left at 0: the join ignores them; the one a receiver reads
 * besides (its own, for the recall of local snapshots and the message-race check) the sender
 * always sends as a value of its own (vc.h, keep). A base is dropped only once every live
 * context knows a later one (coll.c, bases_prune), so a context that does not know B' (an
 * OpenMP task created before it) finds its base kept, unless the bound on kept bases forced
 * it out: then it may report false races, and says so once. A malformed encoding orders
 * nothing. */
static _Atomic int warned_base, warned_malformed;
static HRACE_COLD void decode_warn(_Atomic int *warned, const char *what) {
  if (!atomic_exchange(warned, 1)) hrace__warn("%s: this receive may report false races", what);
}

static HRACE_COLD const hrace_hdr_t *decode_frame(const hrace_comm_t *rec, const hrace_hdr_t *h,
                                                  const MPI_Status *st) {
  static __thread hrace_hdr_t *dec;
  static __thread uint8_t *tail;
  uint32_t n = hrace__clock_len();
  size_t max = HRACE_VC_ENC_MAX(n);
  if (HRACE_UNLIKELY(!dec)) {
    if (!(dec = malloc(sizeof *dec + n * sizeof(hrace_clk_t))) || !(tail = malloc(max))) abort();
  }
  dec->word = (h->word & ~(uint32_t)(HRACE_HDR_MORE | HRACE_HDR_ENC)) | HRACE_HDR_FULL;
  dec->sync_id = h->sync_id, dec->site = h->site;
  const uint8_t *in = (const uint8_t *)h->clk;
  size_t len = (size_t)hrace__wire_inline;
  if (hrace__hdr_flags(h) & HRACE_HDR_MORE) {
    MPI_Status ts;
    int rc = wait_tail(tail, (int)max, st->MPI_SOURCE, tail_tag(h->sync_id), rec, &ts);
    int got = rc == MPI_SUCCESS ? hrace__status_bytes(&ts) : 0;
    in = tail, len = got > 0 ? (size_t)got : 0;
  }
  int64_t num = hrace__vc_encoded_base(in, len);
  const hrace_clk_t *base = NULL, *newer = NULL;
  if (num > 0 && !(base = hrace__base_find((uint32_t)num, &newer))) {
    const hrace_vc_t *g = hrace__thread_view();
    int knows = newer != NULL;
    for (uint32_t i = 0; knows && i < n; i++) knows = newer[i] <= (i < g->n ? g->c[i] : 0);
    if (!knows) decode_warn(&warned_base, "a message's clock was encoded against a collective's clock this rank no longer keeps (a context lagged behind more collectives than it keeps)");
  }
  if (base) hrace__copy(dec->clk, base, n * sizeof(hrace_clk_t));
  else memset(dec->clk, 0, n * sizeof(hrace_clk_t));
  uint32_t keep = num > 0 ? (uint32_t)hrace__proc.rank : UINT32_MAX;   /* see encode() */
  if (num < 0 || hrace__vc_decode(in, len, dec->clk, n, keep, num > 0 && !base) < 0) {
    decode_warn(&warned_malformed, "a message's clock arrived malformed or incomplete");
    dec->word &= ~(uint32_t)HRACE_HDR_CLOCK;
    memset(dec->clk, 0, n * sizeof(hrace_clk_t));
  }
  return dec;
}

/* The clock of a frame that is not dense entries alone: decoded, or completed by its tail. */
static HRACE_COLD const hrace_hdr_t *whole_clock(const hrace_comm_t *rec, const hrace_hdr_t *h,
                                                 const MPI_Status *st) {
  unsigned f = hrace__hdr_flags(h);
  if (f & HRACE_HDR_ENC) return f & HRACE_HDR_CLOCK ? decode_frame(rec, h, st) : h;
  return recv_tail(rec, h, st);
}

/* The receive side of an arrived frame: join, races, responder answer; frees the post. */
HOT void arrived(hrace_comm_t *rec, hrace_post_t *post, const hrace_hdr_t *h,
                 const MPI_Status *st, int active, const char *fn) {
  if (h && HRACE_UNLIKELY(hrace__hdr_flags(h) & (HRACE_HDR_MORE | HRACE_HDR_ENC))) h = whole_clock(rec, h, st);
  if (h && active && (hrace__hdr_flags(h) & HRACE_HDR_CLOCK)) hrace__wait(h->clk, hrace__hdr_clock_n(h), fn);
  if (post) hrace__post_done(post, h && (hrace__hdr_flags(h) & HRACE_HDR_CLOCK) ? h : NULL,
                             st ? st->MPI_SOURCE : -1, st ? st->MPI_TAG : -1);
  if (HRACE_UNLIKELY(hrace__mrace_pending)) hrace__mrace_flush();   /* post_done found races */
}

/* Messages matched by MPI_Mprobe / MPI_Improbe and not yet received: their communicator and
 * the post that stands for the probe (the probe is where a wildcard matched). */
typedef struct mprobed { MPI_Message m; hrace_comm_t *rec; hrace_post_t *post; struct mprobed *next; } mprobed_t;
static mprobed_t *mprobed;

static void mprobed_add(MPI_Message m, hrace_comm_t *rec, hrace_post_t *post) {
  mprobed_t *e = malloc(sizeof *e);
  if (!e) abort();
  hrace__post_lock();
  *e = (mprobed_t){ m, rec, post, mprobed };
  mprobed = e;
  hrace__post_unlock();
}

static int mprobed_take(MPI_Message m, hrace_comm_t **rec, hrace_post_t **post) {
  hrace__post_lock();
  for (mprobed_t **p = &mprobed; *p; p = &(*p)->next)
    if ((*p)->m == m) {
      mprobed_t *e = *p;
      *p = e->next;
      hrace__post_unlock();
      *rec = e->rec, *post = e->post;
      free(e);
      return 1;
    }
  hrace__post_unlock();
  return 0;
}

static int do_recv(hrace_p2p_t *a) {
  tinfo_t ti;
  hrace_comm_t *rec = NULL;
  hrace_post_t *post = NULL;
  int mrecv = a->kind == HRACE_P2P_MRECV || a->kind == HRACE_P2P_IMRECV;
  if (mrecv) {
    if (!a->msg || *a->msg == MPI_MESSAGE_NULL || *a->msg == MPI_MESSAGE_NO_PROC ||
        a->count < 0 || a->type == MPI_DATATYPE_NULL || type_info(a->type, a->count, &ti) ||
        !mprobed_take(*a->msg, &rec, &post))
      return raw(a);
  } else {
    rec = a->peer == MPI_PROC_NULL ? NULL : checked(a, 1, &ti);
    if (!rec) return raw(a);
  }
  if (a->kind == HRACE_P2P_RECV || a->kind == HRACE_P2P_MRECV) {
    MPI_Status tmp, *st = a->status == MPI_STATUS_IGNORE ? &tmp : a->status;
    hrace_post_t mem;
    int blk = !post && hrace__post_blocking(rec, a->peer, a->tag, a->active);
    if (!post && !blk) post = hrace__post_add(rec, a->peer, a->tag, a->active, &mem);
    wire_t w = frame_recv(a->buf, a->count, a->type, &ti, NULL);
    int rc = mrecv ? PMPI_Mrecv(w.buf, w.count, w.type, a->msg, st)
                   : PMPI_Recv(w.buf, w.count, w.type, a->peer, a->tag, a->comm, st);
    void *hdr = w.type == MPI_PACKED ? w.buf : scratch_buf();
    const hrace_hdr_t *h = rc == MPI_SUCCESS ? unframe(&w, hdr, a->buf, a->count, a->type, &ti, a->comm, st, 0, st != &tmp) : NULL;
    if (w.type != MPI_PACKED) PMPI_Type_free(&w.type);
    arrived(rec, post, h, st, a->active, a->fn);
    if (blk) hrace__post_blocking_done(rec, h && (hrace__hdr_flags(h) & HRACE_HDR_CLOCK) ? h : NULL,
                                       h ? st->MPI_SOURCE : -1);
    return rc;
  }
  hrace_rs_t *s = hrace__rs_new(HRACE_RS_RECV);
  s->rec = rec, s->fn = a->fn, s->buf = a->buf, s->count = a->count, s->type = a->type;
  s->peer = a->peer, s->tag = a->tag, s->pc = a->pc, s->active = a->active;
  s->persistent = a->kind == HRACE_P2P_RECV_INIT;
  if (!s->persistent && !post) post = hrace__post_add(rec, a->peer, a->tag, a->active, &s->postmem);
  s->post = post;
  wire_t w = frame_recv(a->buf, a->count, a->type, &ti, s);
  s->fbytes = w.count;
  int rc;
  if (a->kind == HRACE_P2P_IRECV) rc = PMPI_Irecv(w.buf, w.count, w.type, a->peer, a->tag, a->comm, a->req);
  else if (a->kind == HRACE_P2P_IMRECV) rc = PMPI_Imrecv(w.buf, w.count, w.type, a->msg, a->req);
  else rc = PMPI_Recv_init(w.buf, w.count, w.type, a->peer, a->tag, a->comm, a->req);
  if (rc != MPI_SUCCESS) {
    if (post) hrace__post_done(post, NULL, -1, -1);
    hrace__rs_free(s);
    return rc;
  }
  s->started = !s->persistent;
  if (a->active && !s->persistent) hrace__rs_buffers(s, a->buf, a->count, a->type, 1);
  hrace__rs_put(*a->req, s);
  return rc;
}

/* MPI_Start of a persistent receive. */
void hrace__p2p_start_recv(hrace_rs_t *s, int active) {
  s->active = active;
  s->done = 0;
  s->data_bytes = -1;
  s->post = hrace__post_add(s->rec, s->peer, s->tag, active, &s->postmem);
}

/* Completion of a non-blocking or persistent receive (reqtab.c). */
void hrace__p2p_recv_complete(hrace_rs_t *s, MPI_Status *st, int active) {
  if (s->done) {
    /* MPI_Request_get_status saw it complete first; the Wait / Test that frees it gets MPI's
     * status again, which counts the frame: the application's count once more. */
    if (s->data_bytes >= 0) PMPI_Status_set_elements(st, MPI_BYTE, s->data_bytes);
    return;
  }
  s->done = 1;
  wire_t w = { s->ftype == MPI_DATATYPE_NULL ? s->frame : MPI_BOTTOM, s->fbytes,
               s->ftype == MPI_DATATYPE_NULL ? MPI_PACKED : s->ftype };
  const hrace_hdr_t *h = unframe(&w, s->frame, s->buf, s->count, s->type, NULL, s->rec->comm, st, 1, 1);
  if (h) s->data_bytes = hrace__status_bytes(st);
  arrived(s->rec, s->post, h, st, active && s->active, s->fn);
  s->post = NULL;
}

/* ---- probes: no edge, but the count must be the application's ----------------------------- */
static int do_probe(hrace_p2p_t *a) {
  hrace_comm_t *rec = hrace__comm_of(a->comm);
  if (!rec || a->peer == MPI_PROC_NULL) return raw(a);
  MPI_Status tmp, *st = a->status == MPI_STATUS_IGNORE ? &tmp : a->status;
  int one = 1, *flag = a->flag ? a->flag : &one;
  int matching = a->kind == HRACE_P2P_MPROBE || a->kind == HRACE_P2P_IMPROBE;
  /* A matched probe is where a wildcard decides: it stands as the post of the receive. Its
   * tick waits for a match (nothing of the application runs inside the call), so that an
   * Improbe polling loop does not tick at every try. */
  hrace_post_t *post = matching ? hrace__post_add(rec, a->peer, a->tag, 0, NULL) : NULL;
  int rc;
  switch (a->kind) {
  case HRACE_P2P_PROBE: rc = PMPI_Probe(a->peer, a->tag, a->comm, st); break;
  case HRACE_P2P_IPROBE: rc = PMPI_Iprobe(a->peer, a->tag, a->comm, flag, st); break;
  case HRACE_P2P_MPROBE: rc = PMPI_Mprobe(a->peer, a->tag, a->comm, a->msg, st); break;
  default: rc = PMPI_Improbe(a->peer, a->tag, a->comm, flag, a->msg, st); break;
  }
  if (rc == MPI_SUCCESS && *flag && st->MPI_SOURCE != MPI_PROC_NULL) {
    int got = hrace__status_bytes(st);
    if (got != MPI_UNDEFINED && got >= hrace__hdr_bytes)
      PMPI_Status_set_elements(st, MPI_BYTE, got - hrace__hdr_bytes);
    if (matching && *a->msg != MPI_MESSAGE_NO_PROC && *a->msg != MPI_MESSAGE_NULL) {
      mprobed_add(*a->msg, rec, post);
      post = NULL;
      if (a->active) hrace__signal_done(a->fn);
    }
  }
  if (post) hrace__post_done(post, NULL, -1, -1);
  return rc;
}

/* A NULL buffer with a count, or a datatype never committed (argcheck.h): diagnosed with the
 * caller's line, then the call goes to MPI unframed, as it came. A named type seen before
 * with a buffer costs one cache look-up. */
static int bad_args(const hrace_p2p_t *a) {
  if (!a->active || a->count <= 0 || a->type == MPI_DATATYPE_NULL) return 0;
  if (a->buf) {
    const struct tcache *e = &tcache[tslot(a->type)];
    if (e->t == a->type && e->named) return 0;
  }
  return hrace__check_buffer(a->fn, "buffer", a->buf, a->count, a->type, a->pc) != 0;
}

int hrace__p2p(hrace_p2p_t *a) {
  if (a->kind != HRACE_P2P_PROBE && a->kind != HRACE_P2P_IPROBE && a->kind != HRACE_P2P_MPROBE &&
      a->kind != HRACE_P2P_IMPROBE && HRACE_UNLIKELY(bad_args(a)))
    return raw(a);
  switch (a->kind) {
  case HRACE_P2P_SEND: case HRACE_P2P_ISEND: case HRACE_P2P_SEND_INIT: return do_send(a);
  case HRACE_P2P_PROBE: case HRACE_P2P_IPROBE: case HRACE_P2P_MPROBE: case HRACE_P2P_IMPROBE:
    return do_probe(a);
  default: return do_recv(a);
  }
}

/* ---- MPI_Sendrecv, MPI_Sendrecv_replace: both halves in one real MPI_Sendrecv ------------ */
int hrace__p2p_sendrecv(hrace_p2p_t *s, hrace_p2p_t *r, int replace) {
  tinfo_t sti, rti;
  hrace_comm_t *srec = s->peer == MPI_PROC_NULL ? NULL : checked(s, 0, &sti);
  hrace_comm_t *rrec = r->peer == MPI_PROC_NULL ? NULL : checked(r, 1, &rti);
  int sbad = s->peer != MPI_PROC_NULL && !srec, rbad = r->peer != MPI_PROC_NULL && !rrec;
  if (sbad || rbad || (!srec && !rrec)) {
    if (replace)
      return PMPI_Sendrecv_replace(r->buf, r->count, r->type, s->peer, s->tag, r->peer, r->tag,
                                   r->comm, r->status);
    return PMPI_Sendrecv(s->buf, s->count, s->type, s->peer, s->tag, r->buf, r->count, r->type,
                         r->peer, r->tag, r->comm, r->status);
  }
  int H = hrace__hdr_bytes;
  /* Send half: always packed into a buffer of its own (replace overwrites the data). */
  char *sf = NULL;
  int sbytes = 0;
  if (srec) {
    int cap = H + (int)sti.bytes;
    sf = malloc(cap + 1);
    if (!sf) abort();
    fill_hdr((hrace_hdr_t *)sf, srec, s->peer, s->active, 0, 0, hrace__send_site(s->pc, s->fn));
    sbytes = pack(sf, s->buf, s->count, s->type, &sti, s->comm, cap);
  }
  hrace_post_t mem;
  hrace_post_t *post = rrec ? hrace__post_add(rrec, r->peer, r->tag, r->active, &mem) : NULL;
  hrace_rs_t *rs = hrace__rs_new(HRACE_RS_RECV);   /* holds the receive half's frame */
  wire_t w = { NULL, 0, MPI_BYTE };
  if (rrec) w = frame_recv(r->buf, r->count, r->type, &rti, rs);
  MPI_Status tmp, *st = r->status == MPI_STATUS_IGNORE ? &tmp : r->status;
  int rc = PMPI_Sendrecv(sf ? sf : s->buf, sf ? sbytes : s->count, sf ? MPI_PACKED : s->type,
                         s->peer, s->tag, w.buf ? w.buf : r->buf, rrec ? w.count : r->count,
                         rrec ? w.type : r->type, r->peer, r->tag, r->comm, st);
  free(sf);
  if (rc == MPI_SUCCESS && srec && s->active) hrace__signal_done(s->fn);
  if (rrec) {
    const hrace_hdr_t *h = rc == MPI_SUCCESS ? unframe(&w, rs->frame, r->buf, r->count, r->type, &rti, r->comm, st, 0, 1) : NULL;
    arrived(rrec, post, h, st, r->active, r->fn);
  }
  hrace__rs_free(rs);
  return rc;
}

/* ---- MPI-4: MPI_Isendrecv(_replace), large counts ------------------------------------------ */
/* Run as the Irecv and Isend it is defined to behave like, both framed: the application's
 * request is the receive's (it completes, unframes and joins at the Wait / Test like an
 * Irecv's), and the send goes from a packed copy that hrace finishes in the background (an
 * orphan, reqtab.h), so the application's buffers are free exactly when MPI would free them.
 * Not one real MPI_Isendrecv: MPICH 4.0.2 completes it with a status whose count is 0, and
 * the frame's length would be lost. _replace receives into the state's frame, never into the
 * buffer its send half reads. */
int hrace__p2p_isendrecv(hrace_p2p_t *s, hrace_p2p_t *r, int replace, MPI_Request *req) {
#if MPI_VERSION >= 4
  tinfo_t sti, rti;
  hrace_comm_t *srec = s->peer == MPI_PROC_NULL ? NULL : checked(s, 0, &sti);
  hrace_comm_t *rrec = r->peer == MPI_PROC_NULL ? NULL : checked(r, 1, &rti);
  int sbad = s->peer != MPI_PROC_NULL && !srec, rbad = r->peer != MPI_PROC_NULL && !rrec;
  if (sbad || rbad || (!srec && !rrec)) {
    if (replace)
      return PMPI_Isendrecv_replace(r->buf, r->count, r->type, s->peer, s->tag, r->peer, r->tag,
                                    r->comm, req);
    return PMPI_Isendrecv(s->buf, s->count, s->type, s->peer, s->tag, r->buf, r->count, r->type,
                          r->peer, r->tag, r->comm, req);
  }
  hrace_rs_t *ss = NULL;
  if (srec) {   /* the send half's packed copy, before the receive may overwrite (replace) */
    int cap = hrace__hdr_bytes + (int)sti.bytes;
    ss = hrace__rs_new(HRACE_RS_SEND);
    char *sf = hrace__rs_frame(ss, (size_t)cap + 1);
    fill_hdr((hrace_hdr_t *)sf, srec, s->peer, s->active, 0, 0, hrace__send_site(s->pc, s->fn));
    ss->fbytes = pack(sf, s->buf, s->count, s->type, &sti, s->comm, cap);
  }
  hrace_p2p_t rr = *r;
  rr.kind = HRACE_P2P_IRECV;
  rr.req = req;
  int rc = do_recv(&rr);   /* MPI_PROC_NULL goes to MPI as is */
  if (rc != MPI_SUCCESS || !ss) {
    if (ss) hrace__rs_free(ss);
    return rc;
  }
  hrace_rs_t *st = s->active && !replace ? hrace__rs_get(*req) : NULL;
  if (st) {   /* the send buffer is the application's request's too (hrace sends a copy) */
    hrace_nbbuf_t b[2] = { { r->buf, r->count, r->type, 1 }, { s->buf, s->count, s->type, 0 } };
    hrace__rs_buffers_done(st);
    st->nbbuf = hrace__nb_track(b, 2, r->fn, r->pc);
  }
  MPI_Request sreq;
  rc = PMPI_Isend(ss->frame, ss->fbytes, MPI_PACKED, s->peer, s->tag, s->comm, &sreq);
  if (rc != MPI_SUCCESS) {
    hrace__rs_free(ss);
    return rc;
  }
  if (s->active) hrace__signal_done(s->fn);
  ss->started = 1;              /* a standard-mode send: its completion only frees the copy */
  hrace__rs_orphan(sreq, ss);
  return rc;
#else
  (void)s, (void)r, (void)replace, (void)req;
  return MPI_ERR_OTHER;   /* generated only from MPI-4 on */
#endif
}

void hrace__unmodelled(const char *fn, const char *what) {
  hrace__warn("%s is not modelled by hrace yet: %s", fn, what);
}

int hrace__count_too_large(const char *fn, uintptr_t pc) {
  hrace__report_misuse(pc, "%s with a count above %d: hrace cannot frame a message that large "
                       "(its clock would be lost and the receiver would misread the data), so "
                       "the job stops here", fn, HRACE_COUNT_MAX);
  hrace__report_abort(fn, 2);
  PMPI_Abort(MPI_COMM_WORLD, 2);
  return MPI_ERR_COUNT;
}

/* ---- MPI_Buffer_attach / detach: room for one header per buffered message ----------------- */
static void *user_buf;
static int user_size;

int hrace__h_buffer_attach(void *buf, int size, int active) {
  if (size < 0 || user_buf) return PMPI_Buffer_attach(buf, size);
  /* Each buffered message takes at least MPI_BSEND_OVERHEAD bytes of the user's buffer, so
   * it holds at most size / MPI_BSEND_OVERHEAD + 1 messages; each grows by a header. */
  long long more = ((long long)size / MPI_BSEND_OVERHEAD + 1) * (hrace__hdr_bytes + 16);
  long long total = size + more > INT_MAX ? INT_MAX : size + more;
  void *mine = malloc((size_t)total);
  if (!mine) return PMPI_Buffer_attach(buf, size);
  int rc = PMPI_Buffer_attach(mine, (int)total);
  if (rc != MPI_SUCCESS) {
    free(mine);
    return rc;
  }
  user_buf = buf, user_size = size;
  return rc;
}

int hrace__h_buffer_detach(void *bufp, int *size, int active) {
  void *mine;
  int got;
  int rc = PMPI_Buffer_detach(&mine, &got);
  if (rc != MPI_SUCCESS) return rc;
  if (user_buf) {
    free(mine);
    *(void **)bufp = user_buf;
    *size = user_size;
    user_buf = NULL;
  } else {
    *(void **)bufp = mine;
    *size = got;
  }
  return rc;
}
