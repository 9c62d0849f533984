// expect-sc: pass
// why: the usual <string.h> functions compute the right results on small inputs.
#include <assert.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
    const char *s = "hello, world";
    assert(strlen(s) == 12);
    assert(strlen("") == 0);
    assert(strcmp("abc", "abc") == 0);
    assert(strcmp("abc", "abd") < 0);
    assert(strcmp("b", "abc") > 0);
    assert(strncmp("abcdef", "abcxyz", 3) == 0);
    assert(strncmp("abcdef", "abcxyz", 4) < 0);

    char buf[32];
    strcpy(buf, "foo");
    strcat(buf, "bar");
    assert(strcmp(buf, "foobar") == 0);
    strncat(buf, "bazqux", 3);
    assert(strcmp(buf, "foobarbaz") == 0);

    char pad[8];
    memset(pad, 'x', sizeof pad);
    strncpy(pad, "ab", sizeof pad); /* pads the rest with NULs */
    assert(pad[0] == 'a' && pad[1] == 'b' && pad[2] == 0 && pad[7] == 0);

    assert(strchr(s, 'o') == s + 4);
    assert(strrchr(s, 'o') == s + 8);
    assert(strchr(s, 'z') == NULL);
    assert(strchr(s, '\0') == s + 12);
    assert(strstr(s, "wor") == s + 7);
    assert(strstr(s, "xyz") == NULL);
    assert(strstr(s, "") == s);

    assert(memcmp("abc", "abd", 2) == 0);
    assert(memcmp("abc", "abd", 3) < 0);
    assert(memchr(s, ',', 12) == s + 5);

    char *dup = strdup(s);
    assert(dup != NULL && dup != s && strcmp(dup, s) == 0);
    free(dup);

    assert(strspn("aabbc", "ab") == 4);
    assert(strcspn("hello", "l") == 2);
    return 0;
}
