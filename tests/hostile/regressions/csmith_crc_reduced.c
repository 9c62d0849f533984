// Reduced (creduce, then by hand) from csmith seed 301: a few transparent_crc calls,
// which update the global crc32_context byte by byte. Under TSO at the default
// --sb-bound the check ran for minutes, although the program has one execution.
#include "csmith.h"
static uint16_t g_45;
static int32_t g_61[5] = {-7, -7, -7, -7, -7};
static uint64_t g_63 = 0;
static int64_t g_73 = 0x03930A17C0583186LL;
int main(void) {
    crc32_gentab();
    transparent_crc(g_45, "g_45", 0);
    for (int i = 0; i < 2; i++) transparent_crc(g_61[i], "g_61[i]", 0);
    transparent_crc(g_63, "g_63", 0);
    transparent_crc(g_73, "g_73", 0);
    platform_main_end(crc32_context ^ 0xFFFFFFFFUL, 0);
    return 0;
}
