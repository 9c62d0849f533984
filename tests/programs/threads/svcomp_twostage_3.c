// expect-sc: fail assertion
// why: the shape of SV-COMP's pthread/twostage_3.c (2 two-stage writers, 1 reader): sscanf, a C library function the checker does not model, is called only when argc != 1, which no run reaches, so the program is checked and the bug found (the reader may run between a writer's two locked stages).
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int writers = 2;
static int readers = 1;
static int data1, data2;
static pthread_mutex_t *lock1, *lock2;

static void *two_stage(void *arg) {
    (void)arg;
    pthread_mutex_lock(lock1);
    data1 = 1;
    pthread_mutex_unlock(lock1);
    pthread_mutex_lock(lock2);
    data2 = data1 + 1;
    pthread_mutex_unlock(lock2);
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    pthread_mutex_lock(lock1);
    if (data1 == 0) {
        pthread_mutex_unlock(lock1);
        return NULL;
    }
    int t1 = data1;
    pthread_mutex_unlock(lock1);
    pthread_mutex_lock(lock2);
    int t2 = data2;
    pthread_mutex_unlock(lock2);
    assert(t2 == t1 + 1);
    return NULL;
}

int main(int argc, char *argv[]) {
    if (argc != 1) {
        if (argc != 3) {
            fprintf(stderr, "usage: twostage <writers> <readers>\n");
            exit(-1);
        }
        sscanf(argv[1], "%d", &writers);
        sscanf(argv[2], "%d", &readers);
    }
    lock1 = malloc(sizeof *lock1);
    lock2 = malloc(sizeof *lock2);
    if (!lock1 || !lock2 || pthread_mutex_init(lock1, NULL) != 0 ||
        pthread_mutex_init(lock2, NULL) != 0)
        exit(-1);
    pthread_t writer_pool[writers];
    pthread_t reader_pool[readers];
    for (int i = 0; i < writers; i++)
        if (pthread_create(&writer_pool[i], NULL, two_stage, NULL) != 0)
            exit(-1);
    for (int i = 0; i < readers; i++)
        if (pthread_create(&reader_pool[i], NULL, reader, NULL) != 0)
            exit(-1);
    for (int i = 0; i < writers; i++)
        pthread_join(writer_pool[i], NULL);
    for (int i = 0; i < readers; i++)
        pthread_join(reader_pool[i], NULL);
    return 0;
}
