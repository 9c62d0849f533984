// expect-sc: pass
// why: free(NULL) is a no-op, not an invalid free (control for the free tests).
#include <stdlib.h>

int *volatile target;

int main(void) {
    free(target);
    return 0;
}
