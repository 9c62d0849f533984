// expect-sc: pass
// expect-tso: pass
// why: a string function reads its own thread's buffered stores (and their definedness), as a load does.
#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

char g[16];
char *published;

static void *peer(void *arg) {
    (void)arg;
    (void)g[0];
    (void)published;
    return NULL;
}

int main(void) {
    pthread_t t;
    pthread_create(&t, NULL, peer, NULL);
    strcpy(g, "hello");
    assert(strlen(g) == 5);
    assert(strcmp(g, "hello") == 0);
    memset(g, 'z', 3);
    assert(memcmp(g, "zzzlo", 5) == 0);
    // Heap memory starts uninitialised: the buffered bytes are what strlen inspects.
    char *s = malloc(16);
    published = s;
    strcpy(s, "abc");
    assert(strlen(s) == 3);
    pthread_join(t, NULL);
    free(s);
    return 0;
}
