// Calls fopen, a libc function the checker does not model.
#include <stdio.h>
int main(void) {
    FILE *f = fopen("/etc/hostname", "r");
    if (f) fclose(f);
    return 0;
}
