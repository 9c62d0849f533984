// expect-sc: pass
// check-args: --races deny
// why: std::mutex orders the increments of a counter
#include <mutex>
#include <thread>
int counter;
std::mutex m;
static void inc() {
    std::lock_guard<std::mutex> g(m);
    counter++;
}
int main() {
    std::thread t1(inc), t2(inc);
    t1.join();
    t2.join();
    return counter == 2 ? 0 : 1;
}
