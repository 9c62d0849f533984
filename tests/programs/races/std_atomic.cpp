// expect-sc: pass
// check-args: --races deny
// why: std::atomic release/acquire publishes plain data
#include <atomic>
#include <thread>
int data;
std::atomic<bool> ready{false};
int main() {
    std::thread t([] {
        data = 42;
        ready.store(true, std::memory_order_release);
    });
    while (!ready.load(std::memory_order_acquire)) {
    }
    int v = data;
    t.join();
    return v == 42 ? 0 : 1;
}
