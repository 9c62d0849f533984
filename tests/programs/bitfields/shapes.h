/* Packed bit-field structs whose bit-fields clang -O0 stores as one integer of odd
 * width: i24, i56, i72, i168 (the csmith seed of issue 35) and i200. */
#pragma pack(push)
#pragma pack(1)
struct S24 { unsigned a : 5; signed b : 11; unsigned c : 8; };
struct S56 { signed a : 13; unsigned b : 30; signed c : 13; };
struct S72 { unsigned a : 3; signed b : 31; unsigned c : 31; signed d : 7; };
struct S168 { signed f0 : 30; signed f1 : 16; signed f2 : 22; unsigned f3 : 22; signed f4 : 12; signed f5 : 12; unsigned f6 : 10; unsigned f7 : 30; signed f8 : 13; };
struct S200 { unsigned long long a : 60; signed long long b : 61; unsigned c : 17; signed long long d : 62; };
#pragma pack(pop)
