/* hrace-test
 * ranks: 2
 * expect: no-race
 * cflags: -O1
 */
/* The twin of stackbuf_O1_race: the program of stackbuf_O0_norace.c (stack buffers used only
 * after their operations completed), built at -O1. */
#include "stackbuf_O0_norace.c"
