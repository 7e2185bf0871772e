/* hrace's own messages between processes, on sockets and shared-memory rings (see chan.h).
 *
 * Wire: a connection starts with a hello {magic, job cookie, sender's world rank, ring}; then
 * messages, each a header {length, tag} and `length` bytes. A connection whose hello is wrong
 * is closed (the TCP port is open to the network; the cookie keeps strangers out).
 *
 * Same host (docs/design.md, "hrace's own traffic"): every process makes at MPI_Init an inbox,
 * a memfd that nothing names, with a control page and two byte rings (requests, replies) per
 * process of its host; a sender maps its two rings and the control page of the receiver's
 * inbox through /proc/PID/fd/N at the connection's first use. The hello says `ring` (0 the
 * request ring, 1 the reply ring) and from then on the messages go into the ring, as a byte
 * stream, in the order the socket would have carried them; the socket carries only doorbells
 * (one byte: a reader should look) and, by its end, the sender's end. Readers look at the
 * rings with plain loads. The control page counts the receiver's threads that are looking
 * (`polling`: the progress thread while awake, threads spinning in hrace__chan_spin): a
 * sender rings the doorbell only when that count is 0. A request writer that finds its ring
 * full sleeps on its socket until a reader makes room and writes a byte back (ring_write); a
 * reply never waits (hrace__chan_reply's backlog). A process writes to itself on the socket. */
#include "core/chan.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/list.h"
#include "base/log.h"
#include "base/options.h"
#include "core/proc.h"
#include "core/thread.h"
#include "core/poll.h"
#include "core/spin.h"

#define HELLO_MAGIC 0x68726368u   /* "hrch" */
#define MAX_IP 4

typedef struct addr {
  uint32_t magic;              /* HELLO_MAGIC: the rank runs hrace (first_gather) */
  char host[64];
  char unix_name[48];          /* abstract socket name, without its leading NUL */
  uint16_t port;               /* TCP, 0: no TCP listener */
  uint16_t nip;
  uint32_t ip[MAX_IP];         /* IPv4, network order, non-loopback */
  int32_t shm_pid, shm_fd;     /* the inbox: /proc/shm_pid/fd/shm_fd; shm_fd -1: none */
} addr_t;

typedef struct hello { uint32_t magic; int32_t rank; uint64_t cookie; int32_t ring, pad; } hello_t;
typedef struct mhdr { uint32_t len; int32_t tag; } mhdr_t;

static addr_t *addrs;          /* per world rank */
static int nprocs = -1;
static uint64_t cookie;
static int lfd_unix = -1, lfd_tcp = -1;

/* ---- shared-memory rings ------------------------------------------------------------------ */
#define SHM_PAGE 4096
#define SHM_MAGIC 0x68727368u   /* "hrsh" */
typedef struct shm_ctl {
  uint32_t magic, ring_size, nslots, pad;
  char line[48];
  _Atomic int32_t polling;     /* the owner's threads looking at its rings now (own line) */
  int32_t pad2;
  _Atomic int64_t alive_ns;    /* when one of them last looked (CLOCK_MONOTONIC, this host) */
  _Atomic int32_t waiting;     /* the owner's threads waiting for a quiet request's effect */
} shm_ctl_t;
/* A ring's page: the writer's and the reader's positions (bytes ever written, read), each on
 * a cache line of its own, and the writer's flag that it waits for room; the ring_size bytes
 * of data follow on the next page. */
typedef struct ring {
  _Atomic uint64_t head;
  char p1[56];
  _Atomic uint64_t tail;
  char p2[56];
  _Atomic uint32_t wwait;      /* the writer waits for room: the reader sends it a byte */
} ring_t;

static int *lidx;              /* per world rank: its index on this host, -1 elsewhere */
static int nlocal;
static size_t ring_size;       /* the same on every process of a host (from nlocal) */
static int inbox_fd = -1, wake_fd = -1;   /* the inbox memfd; an eventfd the progress thread
                                           * polls, for a last poller that leaves (unpoll) */
static char *inbox;            /* this process's inbox, all of it */
static size_t inbox_len;
static shm_ctl_t *me_ctl;      /* its control page */

static size_t slot_len(void) { return SHM_PAGE + ring_size; }
static size_t slot_off(int k) { return SHM_PAGE + (size_t)k * slot_len(); }

/* n bytes between the ring's data d, from stream position pos on (wrapping at its end), and p:
 * into the ring when `in`, out of it otherwise. */
static void ring_copy(char *d, uint64_t pos, char *p, size_t n, int in) {
  for (size_t done = 0, k; done < n; done += k, pos += k) {
    size_t at = (size_t)(pos % ring_size);
    k = ring_size - at < n - done ? ring_size - at : n - done;
    if (in) memcpy(d + at, p + done, k);
    else memcpy(p + done, d + at, k);
  }
}

/* Copy what fits of n bytes into r (data at d); returns the count. Writer side. */
static size_t ring_put(ring_t *r, char *d, const char *p, size_t n) {
  uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
  uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
  size_t room = ring_size - (size_t)(h - t);
  if (n > room) n = room;
  if (!n) return 0;
  ring_copy(d, h, (char *)p, n, 1);
  atomic_store_explicit(&r->head, h + n, memory_order_release);
  return n;
}

/* Copy up to n waiting bytes out of r into p; returns the count. Reader side. */
static size_t ring_get(ring_t *r, const char *d, char *p, size_t n) {
  uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
  uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
  size_t have = (size_t)(h - t);
  if (n > have) n = have;
  if (!n) return 0;
  ring_copy((char *)d, t, p, n, 0);
  atomic_store_explicit(&r->tail, t + n, memory_order_release);
  return n;
}

static int ring_empty(ring_t *r) {
  return atomic_load_explicit(&r->head, memory_order_acquire) ==
         atomic_load_explicit(&r->tail, memory_order_relaxed);
}

/* Outgoing connections: requests (application threads, one mutex per peer), replies
 * (whoever reads: the progress thread, or a helper under the readers' lock). With `ring`, the
 * messages go there and fd carries the doorbells. */
typedef struct out {
  int fd;
  ring_t *ring;
  char *data;                  /* the ring's bytes */
  shm_ctl_t *ctl;              /* the receiver's control page */
  pthread_mutex_t mu;
  char *lazy;                  /* messages that may wait (hrace__chan_send_lazy) */
  size_t nlazy, caplazy;
  unsigned nserved;            /* requests sent by hrace__chan_send_served (under mu) */
} out_t;
static out_t *req, *rep;
static _Atomic int nlazy_peers;   /* peers with lazy messages waiting */
#define LAZY_MAX 32768

/* ---- mailbox: replies for waiting threads ------------------------------------------------- */
typedef struct mail { hrace_list_t link; int src; int32_t tag; void *buf; size_t n; } mail_t;
static pthread_mutex_t mail_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t mail_cv = PTHREAD_COND_INITIALIZER;
static hrace_list_t mail = HRACE_LIST_INIT(mail);   /* arrival order */
static int *nconn;             /* open connections from each peer (progress thread) */
static char *gone;             /* peer closed all its connections: it ended (under mail_mu) */
static _Atomic unsigned mail_seq;   /* bumped by every delivery: what a spinning waiter watches */

static void deliver(int src, int32_t tag, const void *buf, size_t n) {
  mail_t *m = malloc(sizeof *m);
  void *copy = malloc(n ? n : 1);
  if (!m || !copy) abort();
  memcpy(copy, buf, n);
  *m = (mail_t){ .src = src, .tag = tag, .buf = copy, .n = n };
  pthread_mutex_lock(&mail_mu);
  hrace_list_push_back(&mail, &m->link);
  atomic_fetch_add_explicit(&mail_seq, 1, memory_order_release);
  pthread_cond_broadcast(&mail_cv);
  pthread_mutex_unlock(&mail_mu);
}

/* A communicator nobody sends on: probing it drives MPI's progress engine and matches nothing. */
static MPI_Comm progress_comm = MPI_COMM_NULL;

/* Called with mail_mu held, after a look found nothing: a reply usually comes within tens of
 * microseconds (the peer's progress thread answers at once), so yield-spin for it first
 * (core/spin.h). Returns 1 when something was delivered meanwhile (mail_mu held again either
 * way). Once per wait: a wait that outlasts it (a lock held elsewhere, a peer busy in MPI)
 * sleeps as before. */
#define SPIN_NS 50000L   /* bench/README.md, "Waiting for a deposit or a reply" */
typedef struct mail_spin { unsigned seq; int requests; } mail_spin_t;
static int mail_changed(void *arg) {
  mail_spin_t *a = arg;
  hrace__chan_help(a->requests);   /* read the reply ourselves if it is there */
  return atomic_load_explicit(&mail_seq, memory_order_acquire) != a->seq;
}

static int spin_for_mail(int requests) {
  mail_spin_t a = { atomic_load_explicit(&mail_seq, memory_order_acquire), requests };
  pthread_mutex_unlock(&mail_mu);
  int got = hrace__chan_spin(requests, mail_changed, &a, SPIN_NS);
  pthread_mutex_lock(&mail_mu);
  return got;
}

static void *wait_for(int peer, int32_t tag, size_t *n, int requests) {
  hrace__chan_flush();   /* a reply may depend on what still waits here */
  /* The answer may wait for MPI to progress in this process: under MPICH, a lock or unlock
   * from another rank needs its target inside MPI, and the target may be this thread, waiting
   * here for a lock token held by that rank (found as a hang of rma_lock_self_norace on
   * MPICH). A thread inside an MPI call (so one that may call MPI, at any thread level)
   * probes every 100 us while it waits. */
  const hrace_thread_t *t = hrace__thread();
  int poke = t->tid >= 0 && t->depth > 0 && progress_comm != MPI_COMM_NULL;
  int spin = 1;
  pthread_mutex_lock(&mail_mu);
  for (;;) {
    hrace_list_for_each(l, nx, &mail) {
      mail_t *m = hrace_list_entry(l, mail_t, link);
      if (m->src == peer && m->tag == tag) {
        hrace_list_remove(&m->link);
        pthread_mutex_unlock(&mail_mu);
        void *buf = m->buf;
        *n = m->n;
        free(m);
        return buf;
      }
    }
    if (gone[peer]) {
      pthread_mutex_unlock(&mail_mu);
      hrace__fatal("rank %d ended while this rank waited for its answer (did it crash or exit "
                   "without MPI_Finalize?)", peer);
    }
    /* It may be in a ring or on a socket, unread: read it ourselves (chan.h), counted as a
     * reader from the first look (a reply that comes while this thread looks rings no
     * doorbell, which would wake the progress thread on this rank's core), and again while
     * each spin brings mail (a lock_all awaits one grant after another). */
    if (spin) {
      if (spin_for_mail(requests)) continue;
      spin = 0;
    }
    if (!poke) {
      pthread_cond_wait(&mail_cv, &mail_mu);
      continue;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 100000;
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    if (pthread_cond_timedwait(&mail_cv, &mail_mu, &ts) == ETIMEDOUT) {
      pthread_mutex_unlock(&mail_mu);
      int flag = 0;
      PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, progress_comm, &flag, MPI_STATUS_IGNORE);
      pthread_mutex_lock(&mail_mu);
    }
  }
}

void *hrace__chan_wait(int peer, int32_t tag, size_t *n) { return wait_for(peer, tag, n, 0); }
void *hrace__chan_wait_help(int peer, int32_t tag, size_t *n) { return wait_for(peer, tag, n, 1); }

void hrace__chan_poke(void) {
  int flag = 0;
  if (progress_comm != MPI_COMM_NULL)
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, progress_comm, &flag, MPI_STATUS_IGNORE);
}

/* A connection from peer closed. Connections close only when their process ends, and every
 * reply on one is delivered before its end is seen: once all of peer's are closed, nothing
 * more comes from it, and a thread still waiting for it would wait forever. */
static void closed(int peer) {
  if (peer < 0 || --nconn[peer] > 0) return;
  pthread_mutex_lock(&mail_mu);
  gone[peer] = 1;
  pthread_cond_broadcast(&mail_cv);
  pthread_mutex_unlock(&mail_mu);
}

/* ---- connecting and writing --------------------------------------------------------------- */
static int write_all(int fd, struct iovec *iov, int niov) {
  while (niov > 0) {
    struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)niov };
    ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    while (niov > 0 && (size_t)w >= iov->iov_len) w -= (ssize_t)iov->iov_len, iov++, niov--;
    if (niov > 0) iov->iov_base = (char *)iov->iov_base + w, iov->iov_len -= (size_t)w;
  }
  return 0;
}

static int same_host(int peer) {
  return strcmp(addrs[peer].host, addrs[hrace__proc.rank].host) == 0;
}

static int try_connect(int family, const void *sa, socklen_t len) {
  int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  for (;;) {
    if (connect(fd, sa, len) == 0) break;
    if (errno == EINTR) continue;
    close(fd);
    return -1;
  }
  if (family == AF_INET) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  return fd;
}

static int connect_to(int peer) {
  const addr_t *a = &addrs[peer];
  int fd = -1;
  char via[64] = "";
  int tcp_only = strcmp(hrace__opt.transport, "tcp") == 0;
  if (!tcp_only && same_host(peer)) {
    struct sockaddr_un su = { .sun_family = AF_UNIX };
    size_t l = strlen(a->unix_name);
    memcpy(su.sun_path + 1, a->unix_name, l);
    fd = try_connect(AF_UNIX, &su, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + l));
    if (fd >= 0) snprintf(via, sizeof via, "Unix socket @%s", a->unix_name);
  }
  if (fd < 0 && a->port) {
    /* The peer's interface addresses first (with transport=tcp, ranks of one host take the
     * path ranks on different hosts take), loopback last. */
    struct sockaddr_in si = { .sin_family = AF_INET, .sin_port = htons(a->port) };
    for (int i = 0; fd < 0 && i < a->nip; i++) {
      si.sin_addr.s_addr = a->ip[i];
      fd = try_connect(AF_INET, &si, sizeof si);
    }
    if (fd < 0 && same_host(peer)) {
      si.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      fd = try_connect(AF_INET, &si, sizeof si);
    }
    char ip[INET_ADDRSTRLEN] = "?";
    inet_ntop(AF_INET, &si.sin_addr, ip, sizeof ip);
    if (fd >= 0) snprintf(via, sizeof via, "TCP %s:%u", ip, a->port);
  }
  if (fd < 0)
    hrace__fatal("cannot connect to rank %d on %s (hrace's own messages: Unix socket @%s, TCP "
                 "port %u on %d addresses): %s", peer, a->host, a->unix_name, a->port, a->nip,
                 strerror(errno));
  hrace__debug("connected to rank %d (%s) by %s", peer, a->host, via);
  return fd;
}

/* The peer's inbox as this process writes it: its control page and this process's two rings
 * there, mapped once (under map_mu); NULL when there is none (another host, transport=tcp,
 * the peer made none, or the mapping failed: then the socket carries the messages). */
typedef struct peer_map { shm_ctl_t *ctl; char *slots; int tried; } peer_map_t;
static peer_map_t *pmap;
static pthread_mutex_t map_mu = PTHREAD_MUTEX_INITIALIZER;

static peer_map_t *map_peer(int peer) {
  peer_map_t *m = &pmap[peer];
  pthread_mutex_lock(&map_mu);
  if (!m->tried) {
    m->tried = 1;
    const addr_t *a = &addrs[peer];
    int me = hrace__proc.rank;
    if (inbox && a->shm_fd >= 0 && lidx[peer] >= 0 && lidx[me] >= 0) {
      char path[64];
      snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)a->shm_pid, (int)a->shm_fd);
      int fd = open(path, O_RDWR | O_CLOEXEC);
      void *c = MAP_FAILED, *sl = MAP_FAILED;
      if (fd >= 0) {
        c = mmap(NULL, SHM_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        sl = mmap(NULL, 2 * slot_len(), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
                  (off_t)slot_off(2 * lidx[me]));
        close(fd);
      }
      if (c != MAP_FAILED && sl != MAP_FAILED && ((shm_ctl_t *)c)->magic == SHM_MAGIC &&
          ((shm_ctl_t *)c)->ring_size == ring_size) {
        m->ctl = c, m->slots = sl;
      } else {
        hrace__debug("rank %d's shared-memory inbox (%s): %s; its socket carries the messages",
                     peer, path, fd < 0 ? strerror(errno) : "cannot map it");
        if (c != MAP_FAILED) munmap(c, SHM_PAGE);
        if (sl != MAP_FAILED) munmap(sl, 2 * slot_len());
      }
    }
  }
  pthread_mutex_unlock(&map_mu);
  return m->ctl ? m : NULL;
}

/* Open o to peer: kind 0 carries requests, 1 replies. */
static void open_out(out_t *o, int peer, int kind) {
  o->fd = connect_to(peer);
  /* To itself a process writes on the socket: its own reader may be the writer (replies), or
   * wait for a lock the writer holds. */
  peer_map_t *m = strcmp(hrace__opt.transport, "tcp") && same_host(peer) &&
                  peer != hrace__proc.rank ? map_peer(peer) : NULL;
  hello_t h = { HELLO_MAGIC, hrace__proc.rank, cookie, m ? kind : -1, 0 };
  struct iovec iov = { &h, sizeof h };
  if (write_all(o->fd, &iov, 1)) hrace__fatal("cannot greet rank %d: %s", peer, strerror(errno));
  if (m) {
    o->ctl = m->ctl;
    o->ring = (ring_t *)(m->slots + (size_t)kind * slot_len());
    o->data = (char *)o->ring + SHM_PAGE;
    hrace__debug("messages to rank %d go through shared memory", peer);
  }
}

/* A receiver's looker that last looked longer ago than this has lost its core: ring anyway
 * (hrace__chan_spin). A spinner's look (a yield, a look at the rings, maybe a probe of MPI)
 * takes 1-5 us on a core of its own; a sleeping progress thread woken by a doorbell, 5-20 us of
 * both sides' CPU (bench/README.md, "Session 16: tiny PSCW epochs": 5, 20 and 100 us measured
 * alike on the wavefront at load 2; 20 us leaves room for a look that probes MPI). */
#define LOOK_FRESH_NS 20000L

/* A quiet request rings anyway once its ring holds this much: the receiver's progress thread
 * then empties it before a writer finds it full and has to wait for that (ring_write). */
#define QUIET_MAX (ring_size / 2)
/* Every SERVED_BELL-th request of hrace__chan_send_served to a peer rings as an ordinary one.
 * With none ringing, a hash table's two busy-polling ranks never slept, and on a loaded
 * machine fell into plain Open MPI's slow runs (2-4x slower than with a doorbell per flush);
 * a wake-up now and then keeps them running together (bench/README.md, "Session 17": at load
 * 7, 0.34-0.68 s against 1.5-3.0 s with none and 0.56-1.12 s with one per flush). */
#define SERVED_BELL 8

/* After publishing into o's ring: ring the doorbell if no reader of the receiver is looking.
 * The fence orders the publication before the look at `polling` (docs/design.md, "hrace's own
 * traffic": either the receiver's last reader, leaving, sees the bytes, or this sees it gone). A
 * full socket holds doorbells the receiver has not read yet: it will look anyway. */
static void ring_bell(out_t *o, int quiet) {
  atomic_thread_fence(memory_order_seq_cst);
  if (quiet && atomic_load_explicit(&o->ctl->waiting, memory_order_relaxed) == 0 &&
      atomic_load_explicit(&o->ring->head, memory_order_relaxed) -
              atomic_load_explicit(&o->ring->tail, memory_order_relaxed) <
          QUIET_MAX)
    return;
  if (atomic_load_explicit(&o->ctl->polling, memory_order_relaxed) > 0 &&
      hrace__spin_now() - atomic_load_explicit(&o->ctl->alive_ns, memory_order_relaxed) <
          LOOK_FRESH_NS)
    return;
  char b = 0;
  while (send(o->fd, &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno == EINTR) {}
}

/* The bytes of iov into o's ring, in pieces when they do not fit: the receiver's readers make
 * room (the doorbell wakes its progress thread when none looks). A writer that finds no room
 * after a few yields says so in the ring (wwait), looks once more, and sleeps in poll() on its
 * socket, where the reader that makes room writes a byte back (the same fences as the
 * doorbell's, the other way round; the 100 ms timeout is only a safety net). Returns -1 if the
 * receiver ended meanwhile (its end of the socket closed). */
static int ring_write(out_t *o, struct iovec *iov, int niov, int quiet) {
  unsigned idle = 0;
  for (int i = 0; i < niov; i++) {
    const char *p = iov[i].iov_base;
    size_t n = iov[i].iov_len;
    while (n) {
      size_t k = ring_put(o->ring, o->data, p, n);
      p += k, n -= k;
      if (!n) break;
      if (k) {
        ring_bell(o, 0);   /* the reader may be asleep: a full ring must be read */
        idle = 0;
        continue;
      }
      if (++idle < 16) {
        sched_yield();
        continue;
      }
      atomic_store_explicit(&o->ring->wwait, 1, memory_order_seq_cst);
      atomic_thread_fence(memory_order_seq_cst);
      uint64_t h = atomic_load_explicit(&o->ring->head, memory_order_relaxed);
      if (h - atomic_load_explicit(&o->ring->tail, memory_order_acquire) < ring_size) continue;
      struct pollfd pf = { .fd = o->fd, .events = POLLIN };
      if (poll(&pf, 1, 100) > 0) {
        char b[64];
        ssize_t r = read(o->fd, b, sizeof b);
        if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
          errno = EPIPE;
          return -1;
        }
      }
    }
  }
  atomic_store_explicit(&o->ring->wwait, 0, memory_order_relaxed);
  ring_bell(o, quiet);
  return 0;
}

/* Writes this process made to itself (on its sockets: see open_out), counted once each write
 * is whole: a helper looks at its own sockets only when this moved (hrace__chan_help). */
static _Atomic unsigned self_writes;

static int out_write(out_t *o, struct iovec *iov, int niov, int quiet) {
  if (o->ring) return ring_write(o, iov, niov, quiet);
  int rc = write_all(o->fd, iov, niov);
  if (o == &req[hrace__proc.rank] || o == &rep[hrace__proc.rank])
    atomic_fetch_add_explicit(&self_writes, 1, memory_order_release);
  return rc;
}

/* One message, after `pre` bytes of earlier ones (the lazy buffer: 0 or more), in one write. */
static void put_after(out_t *o, int peer, const void *pre, size_t npre, int32_t tag, const void *a,
                      size_t na, const void *b, size_t nb, int quiet) {
  if (na + nb > UINT32_MAX) hrace__fatal("internal message of %zu bytes is too large", na + nb);
  mhdr_t h = { (uint32_t)(na + nb), tag };
  struct iovec iov[4] = { { (void *)pre, npre }, { &h, sizeof h }, { (void *)a, na },
                          { (void *)b, nb } };
  int skip = npre ? 0 : 1;
  if (out_write(o, iov + skip, (nb ? 4 : 3) - skip, quiet))
    hrace__warn("lost a message to rank %d (its connection failed: %s)", peer, strerror(errno));
}

static void put(out_t *o, int peer, int32_t tag, const void *a, size_t na, const void *b,
                size_t nb) {
  put_after(o, peer, NULL, 0, tag, a, na, b, nb, 0);
}

static void flush_locked(out_t *o, int peer) {
  if (!o->nlazy) return;
  struct iovec iov = { o->lazy, o->nlazy };
  if (out_write(o, &iov, 1, 0))
    hrace__warn("lost messages to rank %d (its connection failed: %s)", peer, strerror(errno));
  o->nlazy = 0;
  atomic_fetch_sub_explicit(&nlazy_peers, 1, memory_order_relaxed);
}

/* How send_req treats the doorbell: ring it as ever (BELL), only if a thread of the peer waits
 * or the ring fills (QUIET: hrace__chan_send_quiet), or as QUIET but every SERVED_BELL-th
 * request to the peer as BELL (SERVED: hrace__chan_send_served). */
enum { BELL, QUIET, SERVED };
static void send_req(int peer, int32_t tag, const void *a, size_t na, const void *b, size_t nb,
                     int how) {
  out_t *o = &req[peer];
  pthread_mutex_lock(&o->mu);
  if (o->fd < 0) open_out(o, peer, 0);
  /* What waited goes first, in the same write (one order per connection; a completion after
   * its records costs one system call). */
  const int quiet = how == SERVED ? ++o->nserved % SERVED_BELL != 0 : how == QUIET;
  put_after(o, peer, o->lazy, o->nlazy, tag, a, na, b, nb, quiet);
  if (o->nlazy) {
    o->nlazy = 0;
    atomic_fetch_sub_explicit(&nlazy_peers, 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&o->mu);
}

void hrace__chan_send(int peer, int32_t tag, const void *a, size_t na, const void *b, size_t nb) {
  send_req(peer, tag, a, na, b, nb, BELL);
}

void hrace__chan_send_quiet(int peer, int32_t tag, const void *a, size_t na) {
  send_req(peer, tag, a, na, NULL, 0, QUIET);
}

void hrace__chan_send_served(int peer, int32_t tag, const void *a, size_t na) {
  send_req(peer, tag, a, na, NULL, 0, SERVED);
}

void hrace__chan_waiting(int on) {
  if (!me_ctl) return;
  atomic_fetch_add_explicit(&me_ctl->waiting, on ? 1 : -1, memory_order_seq_cst);
  atomic_thread_fence(memory_order_seq_cst);
}

void hrace__chan_send_lazy(int peer, int32_t tag, const void *a, size_t na) {
  out_t *o = &req[peer];
  mhdr_t h = { (uint32_t)na, tag };
  pthread_mutex_lock(&o->mu);
  if (o->fd < 0) open_out(o, peer, 0);
  if (o->nlazy + sizeof h + na > o->caplazy) {
    o->caplazy = o->nlazy + sizeof h + na > 2 * LAZY_MAX ? o->nlazy + sizeof h + na : 2 * LAZY_MAX;
    o->lazy = realloc(o->lazy, o->caplazy);
    if (!o->lazy) abort();
  }
  if (!o->nlazy) atomic_fetch_add_explicit(&nlazy_peers, 1, memory_order_relaxed);
  memcpy(o->lazy + o->nlazy, &h, sizeof h);
  memcpy(o->lazy + o->nlazy + sizeof h, a, na);
  o->nlazy += sizeof h + na;
  if (o->nlazy >= LAZY_MAX) flush_locked(o, peer);
  pthread_mutex_unlock(&o->mu);
}

void hrace__chan_flush(void) {
  if (!atomic_load_explicit(&nlazy_peers, memory_order_relaxed)) return;
  for (int i = 0; i < nprocs; i++) {
    out_t *o = &req[i];
    pthread_mutex_lock(&o->mu);
    flush_locked(o, i);
    pthread_mutex_unlock(&o->mu);
  }
}

/* Replies into a ring never wait for room: what does not fit waits in the connection's backlog
 * (its `lazy` buffer, unused otherwise), behind which every later reply to that peer queues,
 * and goes out as room appears (flush_replies, by whoever reads). So a reader never blocks on
 * a peer whose own reader may be blocked on it. Under rd_mu. */
static int nbacklog;   /* reply connections with a backlog */

static void backlog_add(out_t *o, const char *p, size_t n) {
  if (o->nlazy + n > o->caplazy) {
    o->caplazy = o->nlazy + n > 2 * o->caplazy ? o->nlazy + n : 2 * o->caplazy;
    if (!(o->lazy = realloc(o->lazy, o->caplazy))) abort();
  }
  if (!o->nlazy) nbacklog++;
  memcpy(o->lazy + o->nlazy, p, n);
  o->nlazy += n;
}

static void flush_replies(void) {
  for (int i = 0; nbacklog && i < nprocs; i++) {
    out_t *o = &rep[i];
    if (!o->nlazy) continue;
    size_t k = ring_put(o->ring, o->data, o->lazy, o->nlazy);
    if (!k) continue;
    memmove(o->lazy, o->lazy + k, o->nlazy - k);
    o->nlazy -= k;
    if (!o->nlazy) nbacklog--;
    ring_bell(o, 0);
  }
}

void hrace__chan_reply(int peer, int32_t tag, const void *buf, size_t n) {
  out_t *o = &rep[peer];
  if (o->fd < 0) open_out(o, peer, 1);
  if (!o->ring) {
    put(o, peer, tag, buf, n, NULL, 0);
    return;
  }
  if (n > UINT32_MAX) hrace__fatal("internal message of %zu bytes is too large", n);
  mhdr_t h = { (uint32_t)n, tag };
  size_t k = o->nlazy ? 0 : ring_put(o->ring, o->data, (const char *)&h, sizeof h);
  if (k == sizeof h) k += ring_put(o->ring, o->data, buf, n);
  if (k) ring_bell(o, 0);
  if (k < sizeof h) backlog_add(o, (const char *)&h + k, sizeof h - k);
  size_t kb = k > sizeof h ? k - sizeof h : 0;
  if (kb < n) backlog_add(o, (const char *)buf + kb, n - kb);
}

/* ---- the progress thread's side ----------------------------------------------------------- */
/* An incoming connection. Between reads it holds only the start of a message whose rest has
 * not arrived (`len` > 0, in a buffer of its own); with nothing pending `buf` is NULL, and a
 * read goes into the readers' one scratch buffer (fill, settle): a job's connections cost no
 * buffer each (64 KiB per connection, two per rank of the job, was the first thing in a rank's
 * memory that grew with P: docs/design.md, "Clock memory per rank in the runtime"). */
typedef struct in {
  int fd, rank;                /* rank -1 until the hello arrived */
  int replies;                 /* it has carried replies: it carries nothing else (chan.h) */
  int borrowed;                /* buf is the scratch buffer (inside one fill .. settle) */
  int bells;                   /* a socket whose messages travel in a ring: only doorbells */
  int slot;                    /* with bells: its ring, slots[slot] */
  int back;                    /* a ring's socket: to wake its writer when it waits for room */
  ring_t *ring;                /* a ring of this process's inbox (slots[]): its messages */
  const char *data;
  char *buf;
  size_t len, cap;
} in_t;

/* The incoming connections. The progress thread reads them, and so may a thread waiting
 * inside a call (hrace__chan_help): whoever holds rd_mu reads and hands out; the progress
 * thread holds it except while it sleeps in poll(), and only it changes the array (accepts,
 * closes). A helper consumes whole messages only, so what it leaves is an incomplete message
 * whose rest has still to arrive on the socket, and poll() (level-triggered) wakes the
 * progress thread for that: it never sleeps on data that is there, and never looks for data
 * a helper took. */
static pthread_mutex_t rd_mu = PTHREAD_MUTEX_INITIALIZER;
static in_t *in;
static int nin;
static hrace_chan_fn serve_fn;   /* set while the progress thread serves */
/* The rings of this process's inbox, two per process of the host (2 * local index + 0 for
 * requests, + 1 for replies), as connections of their own; `sopen` lists those a hello has
 * announced, in the order they were (the progress thread appends under rd_mu; a fixed array,
 * so a reader without the lock reads the first nsopen entries). */
static in_t *slots;
static int *sopen;
static _Atomic int nsopen;
static char *scratch;            /* the readers' buffer (under rd_mu) */
static size_t scratch_cap;

/* Hand out the complete messages in c's buffer; returns 0 when fn said stop. */
static int drain(in_t *c, hrace_chan_fn fn) {
  size_t off = 0;
  int go = 1;
  if (c->rank < 0) {
    if (c->len < sizeof(hello_t)) return 1;
    hello_t h;
    memcpy(&h, c->buf, sizeof h);
    if (h.magic != HELLO_MAGIC || h.cookie != cookie || h.rank < 0 || h.rank >= nprocs) {
      hrace__warn("closed a connection to hrace's port that did not come from this job");
      close(c->fd);
      c->fd = -1;
      return 1;
    }
    int k = h.ring >= 0 && lidx[h.rank] >= 0 && inbox ? 2 * lidx[h.rank] + (h.ring & 1) : -1;
    if (h.ring >= 0 && k < 0) {
      hrace__warn("closed a connection from rank %d: it writes to a shared-memory inbox this "
                  "rank does not have", h.rank);
      close(c->fd);
      c->fd = -1;
      return 1;
    }
    c->rank = h.rank;
    nconn[h.rank]++;
    off = sizeof h;
    if (k >= 0) {   /* the messages come in the ring, the socket brings doorbells */
      c->bells = 1;
      c->slot = k;
      c->len = 0;
      slots[k].back = c->fd;
      if (!slots[k].ring) {
        slots[k] = (in_t){ .fd = -1, .rank = h.rank, .replies = h.ring & 1, .back = c->fd,
                           .ring = (ring_t *)(inbox + slot_off(k)),
                           .data = inbox + slot_off(k) + SHM_PAGE };
        int n = atomic_load_explicit(&nsopen, memory_order_relaxed);
        sopen[n] = k;
        atomic_store_explicit(&nsopen, n + 1, memory_order_release);
      }
      return 1;
    }
  }
  while (go && c->len - off >= sizeof(mhdr_t)) {
    mhdr_t h;
    memcpy(&h, c->buf + off, sizeof h);
    if (c->len - off - sizeof h < h.len) break;
    char *body = c->buf + off + sizeof h;
    off += sizeof h + h.len;
    if (h.tag >= HRACE_CHAN_REPLY) deliver(c->rank, h.tag, body, h.len), c->replies = 1;
    else go = fn(body, h.len, c->rank, h.tag);
  }
  memmove(c->buf, c->buf + off, c->len - off);
  c->len -= off;
  return go;
}

/* One read of what c's peer sent (poll is level-triggered: the rest comes next round), into
 * a buffer with room for at least the whole next message. Returns 0 once the peer closed. */
static int fill(in_t *c) {
  if (!c->len) {                 /* nothing pending: read into the scratch buffer */
    c->buf = scratch, c->cap = scratch_cap;
    c->borrowed = 1;
  }
  size_t need = c->len + 65536;
  if (c->rank >= 0 && c->len >= sizeof(mhdr_t)) {
    mhdr_t h;
    memcpy(&h, c->buf, sizeof h);
    if (sizeof h + h.len > need) need = sizeof h + h.len;
  }
  if (c->cap < need) {
    c->cap = need > 2 * c->cap ? need : 2 * c->cap;
    c->buf = realloc(c->buf, c->cap);
    if (!c->buf) abort();
  }
  if (c->ring) {
    size_t got = ring_get(c->ring, c->data, c->buf + c->len, c->cap - c->len);
    c->len += got;
    atomic_thread_fence(memory_order_seq_cst);   /* room made, then the look at wwait */
    if (got && c->back >= 0 && atomic_load_explicit(&c->ring->wwait, memory_order_relaxed)) {
      atomic_store_explicit(&c->ring->wwait, 0, memory_order_relaxed);
      char b = 0;
      while (send(c->back, &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 && errno == EINTR) {}
    }
    return 1;
  }
  for (;;) {
    ssize_t r = read(c->fd, c->buf + c->len, c->cap - c->len);
    if (r > 0) {
      c->len += (size_t)r;
      return 1;
    }
    if (r < 0 && errno == EINTR) continue;
    return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

/* After a fill and its drain: the scratch buffer goes back (it may have grown), and what is
 * left of an incomplete message moves to a buffer of c's own; a connection with nothing
 * pending keeps no buffer. */
static void settle(in_t *c) {
  if (c->borrowed) {
    scratch = c->buf, scratch_cap = c->cap;
    c->borrowed = 0;
    c->buf = NULL, c->cap = 0;
    if (c->len) {
      c->cap = c->len + 65536;
      if (!(c->buf = malloc(c->cap))) abort();
      memcpy(c->buf, scratch, c->len);
    }
  } else if (!c->len) {
    free(c->buf);
    c->buf = NULL, c->cap = 0;
  }
}

/* Read what waits in the announced rings (under rd_mu): one copy per ring and call, the
 * rest at the next. Returns whether anything was read; *go becomes 0 when fn said stop. */
static int read_rings(hrace_chan_fn fn, int requests, int *go) {
  int got = 0, n = atomic_load_explicit(&nsopen, memory_order_acquire);
  for (int i = 0; *go && i < n; i++) {
    in_t *c = &slots[sopen[i]];
    if ((!requests && !c->replies) || ring_empty(c->ring)) continue;
    fill(c);
    *go = drain(c, fn);
    settle(c);
    got = 1;
  }
  return got;
}

/* Is something unread in an announced ring? (Without rd_mu: sopen only grows.) */
static int rings_pending(void) {
  int n = atomic_load_explicit(&nsopen, memory_order_acquire);
  for (int i = 0; i < n; i++)
    if (!ring_empty(slots[sopen[i]].ring)) return 1;
  return 0;
}

/* This thread looks at the rings (polling + 1) or stops looking. The last one to stop looks once
 * more after its decrement; what it finds there may have been published by a sender that saw it
 * still looking and rang no doorbell, so it wakes the progress thread (docs/design.md, "hrace's
 * own traffic"). */
static void looked(void) {
  if (me_ctl) atomic_store_explicit(&me_ctl->alive_ns, hrace__spin_now(), memory_order_relaxed);
}

static void poll_begin(void) {
  if (!me_ctl) return;
  looked();
  atomic_fetch_add_explicit(&me_ctl->polling, 1, memory_order_seq_cst);
}

static int poll_end(void) {
  if (!me_ctl || atomic_fetch_sub_explicit(&me_ctl->polling, 1, memory_order_seq_cst) != 1)
    return 0;
  atomic_thread_fence(memory_order_seq_cst);
  return rings_pending();
}

/* A spinning thread counts as looking while it spins, and says when it last looked after each
 * yield (alive_ns): a sender rings the doorbell anyway when that is older than LOOK_FRESH_NS,
 * since the spinner then lost its core to someone else and a progress thread woken by the
 * doorbell runs sooner (bench/README.md, "Session 16: tiny PSCW epochs"). One look comes
 * before the first yield: what a waiter waits for is often there already. */
int hrace__chan_spin(int requests, int (*ready)(void *), void *arg, int64_t limit_ns) {
  if (!requests || !me_ctl) return ready(arg) || hrace__spin(ready, arg, limit_ns);
  poll_begin();
  int64_t t0 = hrace__spin_now();
  looked();
  int r = ready(arg);
  while (!r) {
    sched_yield();
    looked();
    if ((r = ready(arg))) break;
    if (hrace__spin_now() - t0 > limit_ns) break;
  }
  if (poll_end()) {
    uint64_t one = 1;
    while (write(wake_fd, &one, sizeof one) < 0 && errno == EINTR) {}
  }
  return r;
}

/* A socket that carries doorbells only: read them all (they say nothing but "look"). Returns 0
 * once the sender's end closed. */
static int read_bells(in_t *c) {
  char b[256];
  for (;;) {
    ssize_t r = read(c->fd, b, sizeof b);
    if (r == (ssize_t)sizeof b) continue;
    if (r > 0) return 1;
    if (r < 0 && errno == EINTR) continue;
    return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

/* The ring that c's doorbells belong to (the hello said which): read it to its end. The socket
 * closes only when the sender's process ends, after everything it wrote into the ring. */
static int drain_ring_of(in_t *c, hrace_chan_fn fn) {
  int go = 1;
  in_t *s = &slots[c->slot];
  s->back = -1;   /* the socket closes next */
  while (go && !ring_empty(s->ring)) {
    fill(s);
    go = drain(s, fn);
    settle(s);
  }
  return go;
}

void hrace__chan_serve(hrace_chan_fn fn) {
  struct pollfd *pf = NULL;
  int cap = 0, go = 1;
  pthread_mutex_lock(&rd_mu);
  serve_fn = fn;
  poll_begin();   /* awake: senders need not ring */
  while (go) {
    looked();
    if (nbacklog) flush_replies();
    if (read_rings(fn, 1, &go)) continue;
    if (!go) break;
    if (cap < nin + 3) {
      cap = cap ? 2 * cap : 64;
      in = realloc(in, cap * sizeof *in);
      pf = realloc(pf, cap * sizeof *pf);
      if (!in || !pf) abort();
    }
    int np = 0;
    pf[np++] = (struct pollfd){ .fd = lfd_unix, .events = POLLIN };
    pf[np++] = (struct pollfd){ .fd = lfd_tcp, .events = POLLIN };   /* -1: ignored */
    pf[np++] = (struct pollfd){ .fd = wake_fd, .events = POLLIN };   /* -1: ignored */
    for (int i = 0; i < nin; i++) pf[np++] = (struct pollfd){ .fd = in[i].fd, .events = POLLIN };
    /* Room for a backlog appears without a doorbell. Otherwise the doorbell protocol wakes us
     * (docs/design.md, "hrace's own traffic"); the 100 ms bound is a guard, not a mechanism: were
     * a wake-up ever lost, a message would wait that long instead of forever, and the next look
     * at the rings says so (debug=1). */
    int tmo = nbacklog ? 1 : 100;
    pthread_mutex_unlock(&rd_mu);
    /* Asleep from here: a sender that published before our look below is seen by it, one
     * after it sees polling drop and rings (or a leaving poller wakes us: wake_fd). */
    if (poll_end()) {
      poll_begin();
      pthread_mutex_lock(&rd_mu);
      continue;
    }
    int rc = poll(pf, (nfds_t)np, tmo);
    poll_begin();
    pthread_mutex_lock(&rd_mu);
    if (rc == 0 && tmo > 1 && rings_pending())
      hrace__debug("progress thread: a ring held messages but no doorbell rang (found by the "
                   "100 ms guard)");
    if (rc < 0) {
      if (errno == EINTR) continue;
      hrace__fatal("progress thread: poll failed: %s", strerror(errno));
    }
    if (pf[2].revents & POLLIN) {
      uint64_t v;
      while (read(wake_fd, &v, sizeof v) < 0 && errno == EINTR) {}
    }
    for (int i = 0; go && i < nin; i++) {
      if (!pf[3 + i].revents) continue;
      int open;
      if (in[i].bells) {
        open = read_bells(&in[i]);
        if (!open) go = drain_ring_of(&in[i], fn);
      } else {
        open = fill(&in[i]);   /* a helper may have read it meanwhile: then nothing */
        go = drain(&in[i], fn);
        settle(&in[i]);
      }
      if ((!open || in[i].fd < 0) && go) {
        if (in[i].fd >= 0) close(in[i].fd), closed(in[i].rank);
        free(in[i].buf);
        in[i].fd = -2;   /* compacted below */
      }
    }
    int k = 0;
    for (int i = 0; i < nin; i++)
      if (in[i].fd != -2) in[k++] = in[i];
    nin = k;
    for (int l = 0; go && l < 2; l++) {
      if (!(pf[l].revents & POLLIN)) continue;
      int fd = accept4(pf[l].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) continue;
      if (nin + 3 >= cap) {
        cap *= 2;
        in = realloc(in, cap * sizeof *in);
        pf = realloc(pf, cap * sizeof *pf);
        if (!in || !pf) abort();
      }
      in[nin++] = (in_t){ .fd = fd, .rank = -1 };
    }
  }
  poll_end();
  for (int i = 0; nbacklog && i < 1000; i++) {   /* replies still owed: at most 1 s more */
    flush_replies();
    if (nbacklog) usleep(1000);
  }
  serve_fn = NULL;
  for (int i = 0; i < nin; i++) {
    if (in[i].fd >= 0) close(in[i].fd);
    free(in[i].buf);
  }
  free(in);
  in = NULL, nin = 0;
  for (int i = 0; i < atomic_load_explicit(&nsopen, memory_order_relaxed); i++) {
    free(slots[sopen[i]].buf);
    slots[sopen[i]].buf = NULL, slots[sopen[i]].len = 0;
  }
  free(scratch);
  scratch = NULL, scratch_cap = 0;
  pthread_mutex_unlock(&rd_mu);
  free(pf);
}

int hrace__chan_help(int requests) {
  if (pthread_mutex_trylock(&rd_mu)) return 0;   /* the progress thread or another helper */
  struct pollfd pf[32];
  int idx[32], np = 0, got = 0, go = 1;
  hrace_chan_fn fn = serve_fn;
  if (nbacklog) flush_replies();
  if (fn) got = read_rings(fn, requests, &go);   /* fn never stops on a helper (chan.h) */
  /* This process's own sockets only when it wrote to itself since a helper last looked: a
   * spinning waiter would otherwise make a system call per look for connections that carry
   * nothing in most programs (the progress thread polls them anyway, so a write made while
   * this look was skipped is read there or at the next look). */
  static unsigned self_seen;
  unsigned self_now = atomic_load_explicit(&self_writes, memory_order_acquire);
  int skip_self = self_now == self_seen;
  for (int i = 0; fn && i < nin && np < 32; i++)
    if (in[i].fd >= 0 && in[i].rank >= 0 && !in[i].bells && (requests || in[i].replies) &&
        !(skip_self && in[i].rank == hrace__proc.rank))
      idx[np] = i, pf[np++] = (struct pollfd){ .fd = in[i].fd, .events = POLLIN };
  /* One system call to see which sockets have data; a closed connection is left to the
   * progress thread (it closes and counts it). */
  if (np && poll(pf, (nfds_t)np, 0) > 0)
    for (int k = 0; k < np; k++) {
      if (!(pf[k].revents & POLLIN)) continue;
      in_t *c = &in[idx[k]];
      size_t before = c->len;
      if (!fill(c) || c->len == before) {
        settle(c);
        continue;
      }
      drain(c, fn);
      settle(c);
      got = 1;
    }
  self_seen = self_now;
  pthread_mutex_unlock(&rd_mu);
  return got;
}

int hrace__chan_serve_quiet(void) {
  if (!me_ctl || !rings_pending() || pthread_mutex_trylock(&rd_mu)) return 0;
  int go = 1, got = 0;
  hrace_chan_fn fn = serve_fn;
  if (nbacklog) flush_replies();
  if (fn) got = read_rings(fn, 1, &go);   /* fn never stops on a helper (chan.h) */
  pthread_mutex_unlock(&rd_mu);
  return got;
}

void hrace__chan_connect(int peer) {
  if (!req || peer < 0 || peer >= nprocs) return;
  out_t *o = &req[peer];
  pthread_mutex_lock(&o->mu);
  if (o->fd < 0) open_out(o, peer, 0);
  pthread_mutex_unlock(&o->mu);
  pthread_mutex_lock(&rd_mu);      /* rep[] belongs to whoever reads (and so replies) */
  if (rep[peer].fd < 0) open_out(&rep[peer], peer, 1);
  pthread_mutex_unlock(&rd_mu);
}

/* ---- set-up ------------------------------------------------------------------------------- */
static void raise_fd_limit(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
      rl.rlim_cur < (rlim_t)(4 * nprocs + 256)) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
}

static int listen_unix(addr_t *me) {
  uint64_t r = 0;
  if (getrandom(&r, sizeof r, 0) != sizeof r) r = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
  snprintf(me->unix_name, sizeof me->unix_name, "hrace.%d.%016llx", (int)getpid(),
           (unsigned long long)r);
  struct sockaddr_un su = { .sun_family = AF_UNIX };
  size_t l = strlen(me->unix_name);
  memcpy(su.sun_path + 1, me->unix_name, l);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0 || bind(fd, (struct sockaddr *)&su, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + l)) ||
      listen(fd, SOMAXCONN)) {
    hrace__warn("cannot listen on a Unix socket: %s", strerror(errno));
    if (fd >= 0) close(fd);
    me->unix_name[0] = 0;
    return -1;
  }
  return fd;
}

static int listen_tcp(addr_t *me) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  struct sockaddr_in si = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
  socklen_t l = sizeof si;
  if (fd < 0 || bind(fd, (struct sockaddr *)&si, sizeof si) || listen(fd, SOMAXCONN) ||
      getsockname(fd, (struct sockaddr *)&si, &l)) {
    hrace__warn("cannot listen on a TCP socket: %s", strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  me->port = ntohs(si.sin_port);
  struct ifaddrs *ifs = NULL;
  if (getifaddrs(&ifs) == 0) {
    for (struct ifaddrs *i = ifs; i && me->nip < MAX_IP; i = i->ifa_next) {
      if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
      uint32_t ip = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
      if ((ntohl(ip) >> 24) != 127) me->ip[me->nip++] = ip;
    }
    freeifaddrs(ifs);
  }
  return fd;
}

/* hrace's first collective, at MPI_Init: every rank's addresses. A rank that does not run
 * hrace (LD_PRELOAD set for some ranks only) never joins it, and then this would wait
 * forever, silently; or that rank's own first collective meets it. So wait with a deadline
 * that only says something (a rank stopped in a debugger is not an error), and check that
 * every contribution is hrace's. */
static void gather_late(const void *arg) {
  (void)arg;
  hrace__warn("MPI_Init has waited 10 s for the other ranks' hrace: does every rank run under "
              "hrace (hrace run, or LD_PRELOAD and OMP_TOOL_LIBRARIES on every rank)? "
              "Still waiting");
}
static int first_gather(addr_t *mine) {
  MPI_Request r;
  if (PMPI_Iallgather(mine, sizeof *mine, MPI_BYTE, addrs, sizeof *mine, MPI_BYTE, MPI_COMM_WORLD,
                      &r) != MPI_SUCCESS ||
      hrace__poll_wait(&r, MPI_STATUS_IGNORE, gather_late, NULL) != MPI_SUCCESS)
    return -1;
  for (int i = 0; i < nprocs; i++)
    if (addrs[i].magic != HELLO_MAGIC) {
      hrace__warn("rank %d does not run hrace, or its first collective met hrace's at MPI_Init: "
                  "every rank must run under hrace (hrace run, or LD_PRELOAD on every rank); "
                  "stopping the job", i);
      PMPI_Abort(MPI_COMM_WORLD, 2);
      return -1;
    }
  return 0;
}

/* This process's inbox (the file's head comment): two rings of 64 KiB per process of the host
 * (its pages are touched only as a ring is used, and its own two stay unused). Without it
 * (transport=tcp, or memfd_create failed) the sockets carry everything. */
static void make_inbox(addr_t *mine, const char *tr) {
  mine->shm_pid = (int32_t)getpid();
  mine->shm_fd = -1;
  ring_size = 65536;
  if (strcmp(tr, "tcp") == 0 || nlocal < 1) return;
  inbox_len = slot_off(2 * nlocal);
  int fd = memfd_create("hrace-inbox", MFD_CLOEXEC);
  void *p = MAP_FAILED;
  if (fd >= 0 && ftruncate(fd, (off_t)inbox_len) == 0)
    p = mmap(NULL, inbox_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  slots = calloc((size_t)(2 * nlocal), sizeof *slots);
  sopen = calloc((size_t)(2 * nlocal), sizeof *sopen);
  if (p == MAP_FAILED || efd < 0 || !slots || !sopen) {
    hrace__debug("no shared-memory inbox (%s): sockets carry hrace's messages", strerror(errno));
    if (fd >= 0) close(fd);
    if (efd >= 0) close(efd);
    if (p != MAP_FAILED) munmap(p, inbox_len);
    free(slots), free(sopen);
    slots = NULL, sopen = NULL;
    return;
  }
  inbox = p, inbox_fd = fd, wake_fd = efd;
  me_ctl = (shm_ctl_t *)inbox;
  me_ctl->magic = SHM_MAGIC;
  me_ctl->ring_size = (uint32_t)ring_size;
  me_ctl->nslots = (uint32_t)(2 * nlocal);
  mine->shm_fd = fd;
}

int hrace__chan_init(void) {
  nprocs = hrace__proc.size;
  int me = hrace__proc.rank;
  const char *tr = hrace__opt.transport;   /* auto or tcp: options.c checked it */
  addrs = calloc((size_t)nprocs, sizeof *addrs);
  req = calloc((size_t)nprocs, sizeof *req);
  rep = calloc((size_t)nprocs, sizeof *rep);
  pmap = calloc((size_t)nprocs, sizeof *pmap);
  lidx = malloc((size_t)nprocs * sizeof *lidx);
  nconn = calloc((size_t)nprocs, sizeof *nconn);
  gone = calloc((size_t)nprocs, 1);
  if (!addrs || !req || !rep || !nconn || !gone || !pmap || !lidx) abort();
  for (int i = 0; i < nprocs; i++) {
    req[i].fd = -1;
    rep[i].fd = -1;
    pthread_mutex_init(&req[i].mu, NULL);
  }
  raise_fd_limit();
  addr_t mine = { .magic = HELLO_MAGIC };
  gethostname(mine.host, sizeof mine.host - 1);
  lfd_unix = listen_unix(&mine);
  /* Which hosts are there? TCP only when some peer is elsewhere (or when asked for). */
  if (first_gather(&mine)) return -1;
  int remote = 0;
  nlocal = 0;
  for (int i = 0; i < nprocs; i++) {
    int same = strcmp(addrs[i].host, mine.host) == 0;
    remote |= !same;
    lidx[i] = same ? nlocal++ : -1;
  }
  make_inbox(&mine, tr);
  if (remote || strcmp(tr, "tcp") == 0 || lfd_unix < 0) lfd_tcp = listen_tcp(&mine);
  if (me == 0 && getrandom(&cookie, sizeof cookie, 0) != sizeof cookie)
    cookie = hrace_hash_mix64((uint64_t)time(NULL) << 22 ^ (uint64_t)getpid());
  PMPI_Bcast(&cookie, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  PMPI_Allgather(&mine, sizeof mine, MPI_BYTE, addrs, sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
  hrace__comm_private(MPI_COMM_WORLD, 3, &progress_comm);
  int ok = lfd_unix >= 0 || lfd_tcp >= 0, all = 0;
  PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!all) {
    hrace__warn("a rank could not open a socket for hrace's own messages: nothing is checked");
    return -1;
  }
  return 0;
}

static int host_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int hrace__chan_hosts(void) {   /* once, at MPI_Init: sort the names, count the distinct */
  const char **h = addrs ? malloc((size_t)nprocs * sizeof *h) : NULL;
  if (!h) return 0;
  for (int i = 0; i < nprocs; i++) h[i] = addrs[i].host;
  qsort(h, (size_t)nprocs, sizeof *h, host_cmp);
  int n = nprocs > 0;
  for (int i = 1; i < nprocs; i++) n += strcmp(h[i - 1], h[i]) != 0;
  free(h);
  return n;
}

void hrace__chan_fini(void) {
  for (int i = 0; i < nprocs; i++) {
    if (req[i].fd >= 0) close(req[i].fd);
    if (rep[i].fd >= 0) close(rep[i].fd);
    if (pmap[i].ctl) munmap(pmap[i].ctl, SHM_PAGE), munmap(pmap[i].slots, 2 * slot_len());
    free(req[i].lazy), free(rep[i].lazy);
    pthread_mutex_destroy(&req[i].mu);
  }
  if (progress_comm != MPI_COMM_NULL) PMPI_Comm_free(&progress_comm);
  if (lfd_unix >= 0) close(lfd_unix);
  if (lfd_tcp >= 0) close(lfd_tcp);
  lfd_unix = lfd_tcp = -1;
  free(addrs), free(req), free(rep), free(nconn), free(gone), free(pmap), free(lidx);
  addrs = NULL, req = NULL, rep = NULL, nconn = NULL, gone = NULL, pmap = NULL, lidx = NULL;
  if (inbox) munmap(inbox, inbox_len);
  if (inbox_fd >= 0) close(inbox_fd);
  if (wake_fd >= 0) close(wake_fd);
  inbox = NULL, me_ctl = NULL, inbox_fd = wake_fd = -1;
  atomic_store_explicit(&nsopen, 0, memory_order_relaxed);
  free(slots), free(sopen);
  slots = NULL, sopen = NULL;
  pthread_mutex_lock(&mail_mu);
  hrace_list_for_each(l, nx, &mail) {
    mail_t *m = hrace_list_entry(l, mail_t, link);
    hrace_list_remove(l);
    free(m->buf);
    free(m);
  }
  pthread_mutex_unlock(&mail_mu);
}
