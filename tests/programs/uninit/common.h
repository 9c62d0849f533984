/* Shared by the uninit/ programs: a 32-bit word on the heap of which only some bytes
 * were written, read through volatile so that no compiler folds the undefined bits. */
#include <stdint.h>
#include <stdlib.h>

/* The word, with only the bytes in `written` (bit i = byte i) written, each holding
 * `byte`; the other bytes were never written. */
static uint32_t partly_defined(unsigned written, unsigned char byte) {
    volatile uint32_t *w = malloc(sizeof *w);
    volatile unsigned char *p = (volatile unsigned char *)w;
    for (unsigned i = 0; i < 4; i++)
        if (written & (1u << i))
            p[i] = byte;
    return *w;
}
