// expect-sc: fail null-dereference
// why: writing a field of a struct through a null pointer (small offset from NULL) is a null dereference.
#include <stddef.h>

struct node {
    int key;
    struct node *next;
};

struct node *volatile head = NULL;

int main(void) {
    struct node *n = head;
    n->next = NULL;
    return 0;
}
