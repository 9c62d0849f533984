// expect-sc: fail out-of-bounds
// why: strcpy writes the terminating NUL too: a buffer one byte short overflows.
#include <stdlib.h>
#include <string.h>

void *volatile sink;
char text[] = "four";

int main(void) {
    char *p = malloc(strlen(text));
    sink = p;
    strcpy(p, text);
    return 0;
}
