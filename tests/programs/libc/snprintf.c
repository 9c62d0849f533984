// expect-sc: pass
// why: snprintf/sprintf results, return values and truncation behave as C specifies; %p of a real pointer starts with 0x.
#include <assert.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%d-%s-%c", 12, "ab", 'z');
    assert(n == 7);
    assert(strcmp(buf, "12-ab-z") == 0);

    /* truncation: returns the length it would have written, keeps the terminator */
    char small[5];
    n = snprintf(small, sizeof small, "%s", "abcdefgh");
    assert(n == 8);
    assert(strcmp(small, "abcd") == 0);

    /* size 0 writes nothing */
    small[0] = 'K';
    n = snprintf(small, 0, "%d", 123456);
    assert(n == 6);
    assert(small[0] == 'K');

    n = sprintf(buf, "%05.1f|%x|%lu", 3.25, 0xbeefu, 99UL);
    assert(strcmp(buf, "003.2|beef|99") == 0 || strcmp(buf, "003.3|beef|99") == 0);
    assert(n == 13);

    int local = 0;
    n = snprintf(buf, sizeof buf, "%p", (void *)&local);
    assert(n > 2 && buf[0] == '0' && buf[1] == 'x');
    return 0;
}
