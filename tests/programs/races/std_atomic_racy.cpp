// expect-sc: fail data-race
// check-args: --races deny
// why: a relaxed std::atomic flag does not publish the plain data
#include <atomic>
#include <thread>
int data;
std::atomic<bool> ready{false};
int main() {
    std::thread t([] {
        data = 42;
        ready.store(true, std::memory_order_relaxed);
    });
    while (!ready.load(std::memory_order_relaxed)) {
    }
    int v = data;
    t.join();
    return v == 42 ? 0 : 1;
}
