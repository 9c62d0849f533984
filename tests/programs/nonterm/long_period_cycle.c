// expect-sc: fail non-terminating
// check-args: --max-steps 20000000
// error-contains: infinite loop
// why: a loop that cycles through 5003 values (a prime, so no sampling period divides it) returns to a state it was in and is caught when its cycle closes, well before the instruction budget.
volatile int sink;

int main(void) {
    unsigned i = 0;
    for (;;) {
        i = (i + 1) % 5003;
        sink = 0;
    }
}
