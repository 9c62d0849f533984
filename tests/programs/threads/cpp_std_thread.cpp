// expect-sc: pass
// why: C++17 std::thread, std::mutex, std::atomic and std::condition_variable: a guarded counter, an atomic counter and a handshake.
// Note: std::thread and std::condition_variable call out-of-line libstdc++
// functions (std::thread::_M_start_thread/join, condition_variable ctor/dtor/
// wait/notify_one, operator new/delete); the checker has to model them.
#include <atomic>
#include <cassert>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace {

struct Shared {
    std::mutex lock;
    std::condition_variable ready_cv;
    bool ready = false;
    int guarded = 0;
    std::atomic<int> hits{0};
};

void worker(Shared &s, int amount) {
    {
        std::lock_guard<std::mutex> guard(s.lock);
        s.guarded += amount;
    }
    s.hits.fetch_add(1, std::memory_order_seq_cst);
}

void waiter(Shared &s) {
    std::unique_lock<std::mutex> held(s.lock);
    s.ready_cv.wait(held, [&s] { return s.ready; });
    assert(s.guarded == 3);
}

} // namespace

int main() {
    Shared s;
    std::thread w([&s] { waiter(s); });
    std::thread a([&s] { worker(s, 1); });
    std::thread b([&s] { worker(s, 2); });
    a.join();
    b.join();
    assert(s.hits.load() == 2);
    {
        std::lock_guard<std::mutex> guard(s.lock);
        s.ready = true;
    }
    s.ready_cv.notify_one();
    w.join();
    return 0;
}
