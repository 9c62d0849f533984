// A single thread counting forever with no visible action and no repeated state: one
// transition never ends, so --timeout must be enforced inside it.
#include <stdio.h>
static long counter;
int main(void) {
    for (;;) {
        counter = counter + 1;
        if (counter == -1) break;
    }
    printf("%ld\n", counter);
    return 0;
}
