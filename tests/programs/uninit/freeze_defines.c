// expect-sc: pass
// why: freeze (__builtin_nondeterministic_value) turns undefined bits into some defined value.
#include "common.h"
#include <stdio.h>

int main(void) {
    int x;
    int y = __builtin_nondeterministic_value(x);
    if (y == 0 || y != 0)
        puts("frozen");
    return 0;
}
