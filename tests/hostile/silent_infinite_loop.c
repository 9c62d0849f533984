// Loops forever with no visible action: the non-terminating verdict.
int main(void) {
    volatile int x = 0;
    while (1) { x = x; }
    return 0;
}
