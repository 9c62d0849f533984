// A library file: no main and no tests, so there is nothing to run.
int add(int a, int b) { return a + b; }
