// A streaming store publishes data with no sfence: x86 may make the flag visible first.
#include <pthread.h>
#include <assert.h>
#include <emmintrin.h>
int data; volatile int flag;
void *prod(void *p) { _mm_stream_si32(&data, 42); flag = 1; return 0; }
void *cons(void *p) { if (flag) assert(data == 42); return 0; }
int main() {
  pthread_t a, b;
  pthread_create(&a, 0, prod, 0); pthread_create(&b, 0, cons, 0);
  pthread_join(a, 0); pthread_join(b, 0);
  return 0;
}
