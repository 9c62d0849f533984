// Includes a header that does not exist anywhere.
#include "no_such_header_for_cargo_tso.h"
int main(void) { return 0; }
