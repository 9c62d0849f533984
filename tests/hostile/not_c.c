This is not a C program.
Just prose, with no code at all;
