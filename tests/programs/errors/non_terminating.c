// expect-sc: fail non-terminating
// why: a single thread stuck in while(1); can never terminate.
volatile int started;

int main(void) {
    started = 1;
    while (1)
        ;
    return 0;
}
