// Found by csmith (crc32 context updates): a single thread storing repeatedly to one
// global. There is one execution; under TSO with a bounded buffer each eviction must not
// branch over flushing the thread's own later entries (that made the number of paths
// grow like Fibonacci in the number of stores: 144 transitions for 12 stores at
// --sb-bound 2, and csmith programs at the default bound never finished).
#include <stdio.h>
static unsigned context;
int main(void) {
    for (int i = 0; i < 64; i++) context = i;
    printf("%u\n", context);
    return 0;
}
