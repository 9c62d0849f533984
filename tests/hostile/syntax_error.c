// A C syntax error: clang must reject it and the tool must say so.
int main(void) {
    int x = 1
    return x
}
