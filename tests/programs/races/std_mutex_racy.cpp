// expect-sc: fail data-race
// check-args: --races deny
// why: one std::thread increments without the std::mutex
#include <mutex>
#include <thread>
int counter;
std::mutex m;
static void inc() {
    std::lock_guard<std::mutex> g(m);
    counter++;
}
static void inc_unlocked() { counter++; }
int main() {
    std::thread t1(inc), t2(inc_unlocked);
    t1.join();
    t2.join();
    return 0;
}
