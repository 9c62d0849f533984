// expect-sc: pass
// why: benchmark: single-threaded compute loop (integer matrix product plus a mixing pass), about 55 million LLVM instructions at -O0 (128^3 inner iterations of ~26 instructions); prints a checksum.
#include <stdio.h>

#define N 128

static unsigned a[N][N], b[N][N], c[N][N];

int main(void) {
    unsigned seed = 12345u;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            seed = seed * 1103515245u + 12345u;
            a[i][j] = (seed >> 16) & 0xffu;
            seed = seed * 1103515245u + 12345u;
            b[i][j] = (seed >> 16) & 0xffu;
        }

    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            unsigned sum = 0;
            for (int k = 0; k < N; k++)
                sum += a[i][k] * b[k][j];
            c[i][j] = sum;
        }

    unsigned checksum = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            checksum = (checksum ^ c[i][j]) * 16777619u;

    printf("checksum=%u\n", checksum);
    return 0;
}
