// expect-sc: fail null-dereference
// why: printf's %n stores the count through its pointer argument, here NULL.
#include <stdio.h>

int *volatile where = 0;

int main(void) {
    printf("ab%n\n", where);
    return 0;
}
