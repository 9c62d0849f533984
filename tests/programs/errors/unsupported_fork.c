// expect-sc: fail unsupported
// why: processes are out of scope: fork() is an `unsupported` verdict that says so, never a pass.
#include <unistd.h>

int main(void) {
    return fork() < 0;
}
