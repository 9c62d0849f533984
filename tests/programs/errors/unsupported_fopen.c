// expect-sc: fail unsupported
// why: fopen() is not modelled: the checker must say unsupported, not guess.
#include <stdio.h>

int main(void) {
    FILE *f = fopen("/etc/hostname", "r");
    if (f)
        fclose(f);
    return 0;
}
