#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <assert.h>

struct node { int val; struct node *next; char *name; };
struct holder { struct node *head; long count; struct node *nodes[3]; };

static int g_a = 11, g_b = 22;
static int *g_ptrs[] = {&g_a, &g_b, &g_a};
static int **g_pp = &g_ptrs[1];
static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }
struct entry { const char *name; int (*fn)(int); int *data; };
static struct entry g_table[] = {{"twice", twice, &g_a}, {"thrice", thrice, &g_b}};
static const char *g_msg = &"hello"[1];
static int g_arr[5] = {1, 2, 3, 4, 5};
static int *g_end = &g_arr[4];

static int ctor_ran = 0;
__attribute__((constructor)) static void early(void) { ctor_ran = ctor_ran * 10 + 1; g_a += 100; }
__attribute__((constructor(200))) static void earliest(void) { ctor_ran = ctor_ran * 10 + 2; }

static _Thread_local int tls_counter = 5;
static _Thread_local int *tls_ptr = &g_b;

int main(void) {
    printf("ctor %d g_a %d\n", ctor_ran, g_a);
    printf("globals %d %d %d %s %d %d\n", *g_ptrs[0], **g_pp, g_table[1].fn(*g_table[0].data), g_msg, *g_end, g_end[-2]);
    printf("tls %d %d\n", ++tls_counter, *tls_ptr);

    /* memcpy/memmove/memset of structs holding pointers: provenance survives */
    struct node *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    char *nm = strdup("first");
    *a = (struct node){1, b, nm};
    *b = (struct node){2, NULL, NULL};
    struct holder h, h2;
    memset(&h, 0, sizeof h);
    h.head = a; h.count = 2; h.nodes[0] = a; h.nodes[1] = b;
    memcpy(&h2, &h, sizeof h);
    memmove(&h2.nodes[1], &h2.nodes[0], 2 * sizeof h2.nodes[0]);
    printf("copied %d %d %s %d %ld\n", h2.head->val, h2.head->next->val, h2.head->name, h2.nodes[2]->val, h2.count);
    struct node *heap_copy = malloc(sizeof(struct holder));
    memcpy(heap_copy, &h2, sizeof h2);
    struct holder *hc = (struct holder *)heap_copy;
    hc->nodes[2]->val += 40;
    printf("through copy %d\n", b->val);
    free(h2.head->name);
    free(hc->nodes[2]);
    free(h2.nodes[0]->next == b ? h2.nodes[1] : NULL);
    free(heap_copy);

    /* ptrtoint / inttoptr round trips and alignment masks */
    long *q = malloc(8 * sizeof(long));
    for (int i = 0; i < 8; i++) q[i] = i * 100;
    uintptr_t u = (uintptr_t)&q[5];
    long *back = (long *)u;
    long *aligned = (long *)((uintptr_t)((char *)&q[3] + 5) & ~(uintptr_t)7);
    uintptr_t mis = ((uintptr_t)((char *)q + 13)) & 7;
    long *via_add = (long *)(u + 2 * sizeof(long));
    long *via_diff = (long *)((uintptr_t)q + ((uintptr_t)&q[4] - (uintptr_t)q));
    printf("roundtrip %ld %ld %lu %ld %ld\n", *back, *aligned, (unsigned long)mis, *via_add, *via_diff);
    uintptr_t tagged = (uintptr_t)&q[1] | 1;
    long *untagged = (long *)(tagged & ~(uintptr_t)1);
    printf("tag %ld %d\n", *untagged, (int)(tagged & 1));

    /* pointer comparison within one object */
    long *lo = &q[2], *hi = &q[6];
    printf("cmp %d %d %d %d %td\n", lo < hi, lo >= hi, lo == &q[2], hi != lo, hi - lo);
    free(q);

    /* arrays of pointers to stack and heap */
    int locals[3] = {7, 8, 9};
    int *ps[4] = {&locals[0], &locals[2], malloc(sizeof(int)), &g_a};
    *ps[2] = 77;
    int sum = 0;
    for (int i = 0; i < 4; i++) sum += *ps[i];
    printf("sum %d\n", sum);
    free(ps[2]);
    assert(ctor_ran == 21);
    return 0;
}
