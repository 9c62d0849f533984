// expect-sc: pass
// why: std::timed_mutex::try_lock_for (pthread_mutex_clocklock) either takes the mutex, and then excludes the other thread, or gives up; try_lock on a held mutex fails.
#include <cassert>
#include <chrono>
#include <mutex>
#include <thread>

static std::timed_mutex m;
static int inside;

int main() {
    std::thread t([] {
        std::lock_guard<std::timed_mutex> g(m);
        inside++;
        assert(inside == 1);
        inside--;
    });
    if (m.try_lock_for(std::chrono::milliseconds(1))) {
        inside++;
        assert(inside == 1);
        inside--;
        m.unlock();
    }
    t.join();
    m.lock();
    std::thread u([] { assert(!m.try_lock()); });
    u.join();
    m.unlock();
    return 0;
}
