/* Empty ThreadSanitizer-ABI callbacks, for bench/access/run.sh: what an instrumented call costs
 * by itself. Only the entry points loop.c's instrumented build uses. */
void __tsan_init(void) {}
void __tsan_func_entry(void *pc) { (void)pc; }
void __tsan_func_exit(void) {}
#define RW(n)                                                                                    \
  void __tsan_read##n(void *a) { (void)a; }                                                      \
  void __tsan_write##n(void *a) { (void)a; }                                                     \
  void __tsan_unaligned_read##n(void *a) { (void)a; }                                            \
  void __tsan_unaligned_write##n(void *a) { (void)a; }
RW(1) RW(2) RW(4) RW(8) RW(16)
void __tsan_read_range(void *a, unsigned long n) { (void)a, (void)n; }
void __tsan_write_range(void *a, unsigned long n) { (void)a, (void)n; }
