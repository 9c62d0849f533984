// expect-sc: pass
// expect-tso: pass
// why: benchmark shaped like a user's test: a C++ bounded queue guarded by std::mutex with two std::condition_variable (not full, not empty); two producers put two items each, one consumer takes all four and checks their sum.
#include <cassert>
#include <condition_variable>
#include <mutex>
#include <thread>

#ifndef ITEMS
#define ITEMS 2
#endif

namespace {

class BoundedQueue {
  public:
    void put(int v) {
        std::unique_lock<std::mutex> lock(mutex_);
        not_full_.wait(lock, [this] { return count_ < kCapacity; });
        slots_[(head_ + count_) % kCapacity] = v;
        count_++;
        not_empty_.notify_one();
    }

    int take() {
        std::unique_lock<std::mutex> lock(mutex_);
        not_empty_.wait(lock, [this] { return count_ > 0; });
        int v = slots_[head_];
        head_ = (head_ + 1) % kCapacity;
        count_--;
        not_full_.notify_one();
        return v;
    }

  private:
    static constexpr int kCapacity = 2;
    std::mutex mutex_;
    std::condition_variable not_full_, not_empty_;
    int slots_[kCapacity] = {};
    int head_ = 0, count_ = 0;
};

BoundedQueue queue;

} // namespace

int main() {
    int sum = 0;
    std::thread p1([] {
        for (int i = 0; i < ITEMS; i++)
            queue.put(10 + i);
    });
    std::thread p2([] {
        for (int i = 0; i < ITEMS; i++)
            queue.put(20 + i);
    });
    std::thread c([&sum] {
        for (int i = 0; i < 2 * ITEMS; i++)
            sum += queue.take();
    });
    p1.join();
    p2.join();
    c.join();
    assert(sum == 10 + 11 + 20 + 21);
    return 0;
}
