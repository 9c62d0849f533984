// expect-sc: fail data-race
// check-args: --races deny
// error-contains: deallocates it
// why: `delete` is a write of the whole object: a relaxed decrement does not order the other owner's read of the payload before the last owner's delete
#include <atomic>
#include <thread>
struct Obj {
    std::atomic<int> refs{2};
    int payload = 42;
};
static void put(Obj *p) {
    if (p->refs.fetch_sub(1, std::memory_order_relaxed) == 1)
        delete p;
}
int seen;
int main() {
    Obj *o = new Obj;
    std::thread t([o] {
        seen = o->payload;
        put(o);
    });
    put(o);
    t.join();
    return 0;
}
