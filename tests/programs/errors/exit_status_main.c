// expect-sc: fail exit-status
// why: main returning a non-zero status is reported as exit-status.
volatile int status = 3;

int main(void) {
    return status;
}
