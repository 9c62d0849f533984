// expect-sc: pass
// why: control: main joins the thread before returning, so the thread never sees x == 1 with y == 0 (the exit scheduling point adds no false alarm).
#include <assert.h>
#include <pthread.h>

int x, y;

static void *t(void *a) {
    (void)a;
    assert(x == 0 || y == 1);
    return 0;
}

int main(void) {
    pthread_t tid;
    pthread_create(&tid, 0, t, 0);
    pthread_join(tid, 0);
    x = 1;
    return 0;
}
