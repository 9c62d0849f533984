#include <stdio.h>
#include <stdint.h>

/* Vector forms of the integer intrinsics (llvm.smin.v4i32 and friends). */
typedef int32_t v4i __attribute__((ext_vector_type(4)));
typedef uint8_t v4b __attribute__((ext_vector_type(4)));
static volatile int32_t in[] = {2, -1, 127, -100, INT32_MAX, 1, INT32_MIN, 2};

int main(void) {
    v4i va = {in[0], in[3], in[4], in[6]};
    v4i vb = {in[2], in[2], in[5], in[1]};
    v4i mn = __builtin_elementwise_min(va, vb), mx = __builtin_elementwise_max(va, vb);
    v4i ab = __builtin_elementwise_abs(va), sat = __builtin_elementwise_add_sat(va, vb);
    v4b bb = {(uint8_t)in[1], 3, (uint8_t)in[2], 0}, bc = {1, 250, (uint8_t)in[2], 0};
    v4b usat = __builtin_elementwise_add_sat(bb, bc);
    for (int k = 0; k < 4; k++)
        printf("lane %d: min %d max %d abs %d sat %d usat %u\n", k, mn[k], mx[k], ab[k], sat[k], usat[k]);
    return 0;
}
