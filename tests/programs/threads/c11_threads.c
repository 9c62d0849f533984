// expect-sc: pass
// why: C11 <threads.h>: thrd_create/thrd_join hand an int result back, mtx_lock orders a counter, cnd_wait waits for a flag, call_once runs once, tss keeps a per-thread value, mtx_trylock reports thrd_busy on a held mutex and a recursive mutex can be locked twice.
#include <assert.h>
#include <stddef.h>
#include <threads.h>

static mtx_t m, rec;
static cnd_t c;
static once_flag once = ONCE_FLAG_INIT;
static tss_t key;
static int counter, ready, inits;

static void init(void) { inits++; }

static int worker(void *arg) {
    call_once(&once, init);
    tss_set(key, arg);
    mtx_lock(&m);
    counter++;
    ready = 1;
    cnd_signal(&c);
    mtx_unlock(&m);
    return (int)(long)tss_get(key) + 40;
}

int main(void) {
    assert(mtx_init(&m, mtx_plain) == thrd_success);
    assert(mtx_init(&rec, mtx_recursive) == thrd_success);
    assert(cnd_init(&c) == thrd_success);
    assert(tss_create(&key, NULL) == thrd_success);
    thrd_t t;
    assert(thrd_create(&t, worker, (void *)2) == thrd_success);
    mtx_lock(&m);
    while (!ready)
        cnd_wait(&c, &m);
    mtx_unlock(&m);
    int res;
    assert(thrd_join(t, &res) == thrd_success);
    assert(res == 42 && counter == 1);
    call_once(&once, init);
    assert(inits == 1);
    mtx_lock(&m);
    assert(mtx_trylock(&m) == thrd_busy);
    mtx_unlock(&m);
    mtx_lock(&rec);
    assert(mtx_lock(&rec) == thrd_success);
    mtx_unlock(&rec);
    mtx_unlock(&rec);
    mtx_destroy(&m);
    mtx_destroy(&rec);
    cnd_destroy(&c);
    return 0;
}
