#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdarg.h>
#include <stdlib.h>

struct small { int a; char b; };
struct pair { long x, y; };
struct mixed { double d; int i; float f; };
struct big { int v[9]; struct pair p; char tag[5]; };
union num { uint32_t u; float f; uint8_t b[4]; };
struct flags { unsigned a : 3; signed b : 5; unsigned c : 12; unsigned d : 1; int e : 11; };

static struct small make_small(int a, char b) { struct small s = {a, b}; return s; }
static struct pair swap_pair(struct pair p) { struct pair q = {p.y, p.x}; return q; }
static struct mixed scale(struct mixed m, double k) { m.d *= k; m.i *= 2; m.f /= 2; return m; }

static int add(int a, int b) { return a + b; }
static int sub(int a, int b) { return a - b; }
static int mul(int a, int b) { return a * b; }
static int (*const table[])(int, int) = {add, sub, mul};
struct op { const char *name; int (*fn)(int, int); };
static struct op ops[] = {{"add", add}, {"sub", sub}, {"mul", mul}};

static long sum_ints(int n, ...) {
    va_list ap; va_start(ap, n); long s = 0;
    for (int i = 0; i < n; i++) s += va_arg(ap, int);
    va_end(ap); return s;
}
static void show(const char *fmt, ...) {
    va_list ap; va_start(ap, fmt);
    for (const char *p = fmt; *p; p++) {
        switch (*p) {
        case 'i': printf("i%d ", va_arg(ap, int)); break;
        case 'l': printf("l%ld ", va_arg(ap, long)); break;
        case 'd': printf("d%.3f ", va_arg(ap, double)); break;
        case 's': printf("s%s ", va_arg(ap, char *)); break;
        case 'p': { int *q = va_arg(ap, int *); printf("p%d ", *q); *q += 1; break; }
        case 'S': { struct pair pp = va_arg(ap, struct pair); printf("S%ld,%ld ", pp.x, pp.y); break; }
        }
    }
    va_end(ap);
    printf("\n");
}
static double avg(int n, ...) {
    va_list ap, cp; va_start(ap, n); va_copy(cp, ap);
    double s = 0; for (int i = 0; i < n; i++) s += va_arg(ap, double);
    double first = va_arg(cp, double);
    va_end(cp); va_end(ap);
    return s / n + first;
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
static int ackermann(int m, int n) { return m == 0 ? n + 1 : n == 0 ? ackermann(m - 1, 1) : ackermann(m - 1, ackermann(m, n - 1)); }
static int is_even(unsigned n);
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }

static const char *classify(int c) {
    switch (c) {
    case 0: return "zero";
    case 1: case 2: case 3: return "small";
    case 10: return "ten";
    case -5: return "minus five";
    case 1000000: return "million";
    default: return c < 0 ? "negative" : "other";
    }
}

int main(void) {
    volatile int k = 7;
    struct small s = make_small(k, 'x');
    printf("small %d %c\n", s.a, s.b);
    struct pair p = swap_pair((struct pair){k, -k * 1000000000L});
    printf("pair %ld %ld\n", p.x, p.y);
    struct mixed m = scale((struct mixed){1.25, k, 3.0f}, 4.0);
    printf("mixed %g %d %g\n", m.d, m.i, m.f);
    struct big b = {{1, 2, 3, 4, 5, 6, 7, 8, 9}, {10, 20}, "tag"};
    struct big b2 = b;
    for (int i = 0; i < 9; i++) b2.v[i] += i * i;
    b2.p.x++; b2.tag[0] = 'B';
    printf("big %d %d %ld %s | orig %d %s\n", b2.v[8], b2.v[3], b2.p.x, b2.tag, b.v[8], b.tag);
    struct big arr[3]; arr[0] = b; arr[1] = b2; arr[2] = arr[k % 2];
    printf("arr %d %s\n", arr[2].v[2], arr[2].tag);
    int grid[4][5];
    for (int i = 0; i < 4; i++) for (int j = 0; j < 5; j++) grid[i][j] = i * 10 + j;
    int *flat = &grid[0][0];
    printf("grid %d %d %d\n", grid[3][4], flat[7], *(*(grid + 2) + 3));
    union num u; u.f = -2.5f;
    printf("union %x %u %u\n", u.u, u.b[3], u.b[0]);
    u.u = 0x40490fdbu;
    printf("union f %.6f\n", u.f);
    struct flags f = {5, -7, 4000, 1, -1000};
    f.a += k; f.b -= 9; f.c ^= 0xfff;
    printf("bitfields %u %d %u %u %d size %zu\n", f.a, f.b, f.c, f.d, f.e, sizeof f);
    int acc = 0;
    for (int i = 0; i < 3; i++) acc = acc * 10 + table[i](k, i + 1);
    printf("fnptr %d", acc);
    for (int i = 0; i < 3; i++) printf(" %s=%d", ops[i].name, ops[(i + k) % 3].fn(k, 3));
    printf("\n");
    printf("varargs %ld %ld\n", sum_ints(4, 1, -2, 3, k), sum_ints(0));
    int counter = 40; long big = 1L << 40;
    show("ildsp", k, big, 2.5, "str", &counter);
    show("dddddddddi", 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.5, 42);
    printf("counter %d avg %.4f\n", counter, avg(3, 1.0, 2.0, 4.5));
    printf("rec %d %d %d %d\n", fib(k + 10), ackermann(2, 3), is_even(1001), is_odd(77));
    static const int cases[] = {0, 2, 10, -5, 1000000, -9, 77};
    for (int i = 0; i < 7; i++) printf("%s,", classify(cases[i]));
    printf("\n");
    int x = k, y = 12;
    int sel = x > y ? x : y; unsigned usel = (unsigned)x < (unsigned)-y ? 1u : 2u;
    printf("select %d %u %d\n", sel, usel, (x & 1) ? -x : x);
    return 0;
}
