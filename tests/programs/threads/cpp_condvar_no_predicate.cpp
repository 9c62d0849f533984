// expect-sc: fail assertion
// why: std::condition_variable::wait without a predicate may wake spuriously; the waiter then sees `ready` false.
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
        if (!ready)
            cv.wait(lk);
        assert(ready);
    }
    t.join();
    return 0;
}
