/* hrace's own messages between processes, on sockets (see chan.h).
 *
 * Wire: a connection starts with a hello {magic, job cookie, sender's world rank}; then
 * messages, each a header {length, tag} and `length` bytes. A connection whose hello is wrong
 * is closed (the TCP port is open to the network; the cookie keeps strangers out). */
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
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
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
} addr_t;

typedef struct hello { uint32_t magic; int32_t rank; uint64_t cookie; } hello_t;
typedef struct mhdr { uint32_t len; int32_t tag; } mhdr_t;

static addr_t *addrs;          /* per world rank */
static int nprocs = -1;
static uint64_t cookie;
static int lfd_unix = -1, lfd_tcp = -1;

/* Outgoing connections: requests (application threads, one mutex per peer), replies
 * (progress thread only). */
typedef struct out {
  int fd;
  pthread_mutex_t mu;
  char *lazy;                  /* messages that may wait (hrace__chan_send_lazy) */
  size_t nlazy, caplazy;
} out_t;
static out_t *req;
static int *rep;
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
  int got = hrace__spin(mail_changed, &a, SPIN_NS);
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
  int spun = 0, helped = 0;
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
    if (!helped++) {   /* it may be on a socket, unread: read it ourselves (chan.h) */
      pthread_mutex_unlock(&mail_mu);
      hrace__chan_help(requests);
      pthread_mutex_lock(&mail_mu);
      continue;
    }
    if (!spun++ && spin_for_mail(requests)) continue;
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

static int open_to(int peer) {
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
  hello_t h = { HELLO_MAGIC, hrace__proc.rank, cookie };
  struct iovec iov = { &h, sizeof h };
  if (write_all(fd, &iov, 1)) hrace__fatal("cannot greet rank %d: %s", peer, strerror(errno));
  return fd;
}

/* One message, after `pre` bytes of earlier ones (the lazy buffer: 0 or more), in one write. */
static void put_after(int fd, int peer, const void *pre, size_t npre, int32_t tag, const void *a,
                      size_t na, const void *b, size_t nb) {
  if (na + nb > UINT32_MAX) hrace__fatal("internal message of %zu bytes is too large", na + nb);
  mhdr_t h = { (uint32_t)(na + nb), tag };
  struct iovec iov[4] = { { (void *)pre, npre }, { &h, sizeof h }, { (void *)a, na },
                          { (void *)b, nb } };
  int skip = npre ? 0 : 1;
  if (write_all(fd, iov + skip, (nb ? 4 : 3) - skip))
    hrace__warn("lost a message to rank %d (its connection failed: %s)", peer, strerror(errno));
}

static void put(int fd, int peer, int32_t tag, const void *a, size_t na, const void *b, size_t nb) {
  put_after(fd, peer, NULL, 0, tag, a, na, b, nb);
}

static void flush_locked(out_t *o, int peer) {
  if (!o->nlazy) return;
  struct iovec iov = { o->lazy, o->nlazy };
  if (write_all(o->fd, &iov, 1))
    hrace__warn("lost messages to rank %d (its connection failed: %s)", peer, strerror(errno));
  o->nlazy = 0;
  atomic_fetch_sub_explicit(&nlazy_peers, 1, memory_order_relaxed);
}

void hrace__chan_send(int peer, int32_t tag, const void *a, size_t na, const void *b, size_t nb) {
  out_t *o = &req[peer];
  pthread_mutex_lock(&o->mu);
  if (o->fd < 0) o->fd = open_to(peer);
  /* What waited goes first, in the same write (one order per connection; a completion after
   * its records costs one system call). */
  put_after(o->fd, peer, o->lazy, o->nlazy, tag, a, na, b, nb);
  if (o->nlazy) {
    o->nlazy = 0;
    atomic_fetch_sub_explicit(&nlazy_peers, 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&o->mu);
}

void hrace__chan_send_lazy(int peer, int32_t tag, const void *a, size_t na) {
  out_t *o = &req[peer];
  mhdr_t h = { (uint32_t)na, tag };
  pthread_mutex_lock(&o->mu);
  if (o->fd < 0) o->fd = open_to(peer);
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

void hrace__chan_reply(int peer, int32_t tag, const void *buf, size_t n) {
  if (rep[peer] < 0) rep[peer] = open_to(peer);
  put(rep[peer], peer, tag, buf, n, NULL, 0);
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
    c->rank = h.rank;
    nconn[h.rank]++;
    off = sizeof h;
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

void hrace__chan_serve(hrace_chan_fn fn) {
  struct pollfd *pf = NULL;
  int cap = 0, go = 1;
  pthread_mutex_lock(&rd_mu);
  serve_fn = fn;
  while (go) {
    if (cap < nin + 2) {
      cap = cap ? 2 * cap : 64;
      in = realloc(in, cap * sizeof *in);
      pf = realloc(pf, cap * sizeof *pf);
      if (!in || !pf) abort();
    }
    int np = 0;
    pf[np++] = (struct pollfd){ .fd = lfd_unix, .events = POLLIN };
    pf[np++] = (struct pollfd){ .fd = lfd_tcp, .events = POLLIN };   /* -1: ignored */
    for (int i = 0; i < nin; i++) pf[np++] = (struct pollfd){ .fd = in[i].fd, .events = POLLIN };
    pthread_mutex_unlock(&rd_mu);
    int rc = poll(pf, (nfds_t)np, -1);
    pthread_mutex_lock(&rd_mu);
    if (rc < 0) {
      if (errno == EINTR) continue;
      hrace__fatal("progress thread: poll failed: %s", strerror(errno));
    }
    for (int i = 0; go && i < nin; i++) {
      if (!pf[2 + i].revents) continue;
      int open = fill(&in[i]);   /* a helper may have read it meanwhile: then nothing */
      go = drain(&in[i], fn);
      settle(&in[i]);
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
      if (nin + 2 >= cap) {
        cap *= 2;
        in = realloc(in, cap * sizeof *in);
        pf = realloc(pf, cap * sizeof *pf);
        if (!in || !pf) abort();
      }
      in[nin++] = (in_t){ .fd = fd, .rank = -1 };
    }
  }
  serve_fn = NULL;
  for (int i = 0; i < nin; i++) {
    if (in[i].fd >= 0) close(in[i].fd);
    free(in[i].buf);
  }
  free(in);
  in = NULL, nin = 0;
  free(scratch);
  scratch = NULL, scratch_cap = 0;
  pthread_mutex_unlock(&rd_mu);
  free(pf);
}

int hrace__chan_help(int requests) {
  if (pthread_mutex_trylock(&rd_mu)) return 0;   /* the progress thread or another helper */
  struct pollfd pf[32];
  int idx[32], np = 0, got = 0;
  hrace_chan_fn fn = serve_fn;
  for (int i = 0; fn && i < nin && np < 32; i++)
    if (in[i].fd >= 0 && in[i].rank >= 0 && (requests || in[i].replies))
      idx[np] = i, pf[np++] = (struct pollfd){ .fd = in[i].fd, .events = POLLIN };
  /* One system call to see which have data; a closed connection is left to the progress
   * thread (it closes and counts it). */
  if (np && poll(pf, (nfds_t)np, 0) > 0)
    for (int k = 0; k < np; k++) {
      if (!(pf[k].revents & POLLIN)) continue;
      in_t *c = &in[idx[k]];
      size_t before = c->len;
      if (!fill(c) || c->len == before) {
        settle(c);
        continue;
      }
      drain(c, fn);   /* fn never stops on a helper (its owner's promise, chan.h) */
      settle(c);
      got = 1;
    }
  pthread_mutex_unlock(&rd_mu);
  return got;
}

void hrace__chan_connect(int peer) {
  if (!req || peer < 0 || peer >= nprocs) return;
  out_t *o = &req[peer];
  pthread_mutex_lock(&o->mu);
  if (o->fd < 0) o->fd = open_to(peer);
  pthread_mutex_unlock(&o->mu);
  pthread_mutex_lock(&rd_mu);      /* rep[] belongs to whoever reads (and so replies) */
  if (rep[peer] < 0) rep[peer] = open_to(peer);
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

int hrace__chan_init(void) {
  nprocs = hrace__proc.size;
  int me = hrace__proc.rank;
  const char *tr = hrace__opt.transport;   /* auto or tcp: options.c checked it */
  addrs = calloc((size_t)nprocs, sizeof *addrs);
  req = calloc((size_t)nprocs, sizeof *req);
  rep = malloc((size_t)nprocs * sizeof *rep);
  nconn = calloc((size_t)nprocs, sizeof *nconn);
  gone = calloc((size_t)nprocs, 1);
  if (!addrs || !req || !rep || !nconn || !gone) abort();
  for (int i = 0; i < nprocs; i++) {
    req[i].fd = -1;
    rep[i] = -1;
    pthread_mutex_init(&req[i].mu, NULL);
  }
  raise_fd_limit();
  addr_t mine = { .magic = HELLO_MAGIC };
  gethostname(mine.host, sizeof mine.host - 1);
  lfd_unix = listen_unix(&mine);
  /* Which hosts are there? TCP only when some peer is elsewhere (or when asked for). */
  if (first_gather(&mine)) return -1;
  int remote = 0;
  for (int i = 0; i < nprocs; i++) remote |= strcmp(addrs[i].host, mine.host) != 0;
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
    if (rep[i] >= 0) close(rep[i]);
    free(req[i].lazy);
    pthread_mutex_destroy(&req[i].mu);
  }
  if (progress_comm != MPI_COMM_NULL) PMPI_Comm_free(&progress_comm);
  if (lfd_unix >= 0) close(lfd_unix);
  if (lfd_tcp >= 0) close(lfd_tcp);
  lfd_unix = lfd_tcp = -1;
  free(addrs), free(req), free(rep), free(nconn), free(gone);
  addrs = NULL, req = NULL, rep = NULL, nconn = NULL, gone = NULL;
  pthread_mutex_lock(&mail_mu);
  hrace_list_for_each(l, nx, &mail) {
    mail_t *m = hrace_list_entry(l, mail_t, link);
    hrace_list_remove(l);
    free(m->buf);
    free(m);
  }
  pthread_mutex_unlock(&mail_mu);
}
