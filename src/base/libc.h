/* hrace's own locking calls libc directly (force-included into every libhrace source by
 * CMakeLists.txt). libhrace exports pthread_mutex_lock & co. to model the application's locks
 * (core/pthread.c), and a library's calls to a symbol it exports go to its own definition:
 * without this, each of hrace's mutex operations took the interposer's detour, +10 ns per
 * message to self and +24 ns under MPI_THREAD_MULTIPLE (bench/README.md). Lock and unlock
 * only: hrace's other pthread calls are on slow paths, and the interposer passes them through. */
#ifndef HRACE_BASE_LIBC_H
#define HRACE_BASE_LIBC_H
#include <pthread.h>

extern int (*hrace__libc_mutex_lock)(pthread_mutex_t *);
extern int (*hrace__libc_mutex_unlock)(pthread_mutex_t *);
#define pthread_mutex_lock(m) hrace__libc_mutex_lock(m)     /* core/pthread.c undefines them */
#define pthread_mutex_unlock(m) hrace__libc_mutex_unlock(m)
#endif
