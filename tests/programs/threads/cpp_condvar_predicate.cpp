// expect-sc: pass
// why: control: std::condition_variable::wait with a predicate loops over spurious wake-ups, so the waiter always sees `ready`.
#include <cassert>
#include <condition_variable>
#include <mutex>
#include <thread>

static std::mutex m;
static std::condition_variable cv;
static bool ready;

int main() {
    std::thread t([] {
        std::lock_guard<std::mutex> g(m);
        ready = true;
        cv.notify_one();
    });
    {
        std::unique_lock<std::mutex> lk(m);
        cv.wait(lk, [] { return ready; });
        assert(ready);
    }
    t.join();
    return 0;
}
