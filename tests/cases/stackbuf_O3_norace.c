/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O3
 */
/* The twin of stackbuf_O3_race: the program of stackbuf_O0_norace.c (stack buffers used only
 * after their operations completed), built at -O3. */
#include "stackbuf_O0_norace.c"
