#include <stdio.h>
#include <stdarg.h>

/* Structs through `...`: 16 bytes go in two registers, larger ones in memory. */
struct pair { long x, y; };
struct triple { long a, b, c; };
struct mix { int i; double d; };

static void show(const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    for (const char *p = fmt; *p; p++) {
        if (*p == 'P') { struct pair q = va_arg(ap, struct pair); printf("P%ld,%ld ", q.x, q.y); }
        else if (*p == 'T') { struct triple t = va_arg(ap, struct triple); printf("T%ld,%ld,%ld ", t.a, t.b, t.c); }
        else if (*p == 'M') { struct mix m = va_arg(ap, struct mix); printf("M%d,%.2f ", m.i, m.d); }
        else if (*p == 'i') printf("i%d ", va_arg(ap, int));
    }
    va_end(ap);
    printf("\n");
}

int main(void) {
    volatile long k = 5;
    show("PiP", (struct pair){k, 2 * k}, 9, (struct pair){-1, -2});
    show("TiT", (struct triple){k, k + 1, k + 2}, 8, (struct triple){7, 8, 9});
    show("MiM", (struct mix){(int)k, 0.5}, 3, (struct mix){-4, 2.25});
    return 0;
}
