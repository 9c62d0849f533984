// A sequence lock protecting a pair of ints: one writer, any number of readers,
// readers never block the writer and retry when they raced with it.
#ifndef SEQLOCK_HPP
#define SEQLOCK_HPP

#include <atomic>

class SeqlockPair {
public:
    SeqlockPair(int first, int second) : seq_(0), first_(first), second_(second) {}

    // Only one thread may write at a time.
    void write(int first, int second) {
        unsigned seq = seq_.load(std::memory_order_relaxed);
        // Odd sequence: a write is in progress. The release fence keeps the data
        // stores after it; on x86 both fences here are compiler barriers only,
        // because TSO keeps stores in program order.
        seq_.store(seq + 1, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_release);
        first_.store(first, std::memory_order_relaxed);
        second_.store(second, std::memory_order_relaxed);
        seq_.store(seq + 2, std::memory_order_release);
    }

    // One attempt; false when a write overlapped it.
    bool try_read(int &first, int &second) const {
        unsigned before = seq_.load(std::memory_order_acquire);
        if (before & 1u) {
            return false;
        }
        int a = first_.load(std::memory_order_relaxed);
        int b = second_.load(std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_acquire);
        if (seq_.load(std::memory_order_relaxed) != before) {
            return false;
        }
        first = a;
        second = b;
        return true;
    }

    void read(int &first, int &second) const {
        while (!try_read(first, second)) {
        }
    }

private:
    std::atomic<unsigned> seq_;
    std::atomic<int> first_;
    std::atomic<int> second_;
};

#endif
