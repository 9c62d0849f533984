// expect-sc: pass
// why: C++ compiled without exceptions (as the tool does) expands pthread_cleanup_push like C: the cancelled thread runs its handler before the joiner sees PTHREAD_CANCELED.
#include <cassert>
#include <pthread.h>

static volatile int stop;
static int cleaned;

static void mark_cleaned(void *) {
    cleaned = 1;
}

static void *worker(void *) {
    pthread_cleanup_push(mark_cleaned, nullptr);
    while (!stop)
        pthread_testcancel();
    pthread_cleanup_pop(0);
    return nullptr;
}

int main() {
    pthread_t t;
    void *r;
    pthread_create(&t, nullptr, worker, nullptr);
    pthread_cancel(t);
    pthread_join(t, &r);
    assert(r == PTHREAD_CANCELED);
    assert(cleaned == 1);
    return 0;
}
