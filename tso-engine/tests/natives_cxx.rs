//! C++ runtime natives (clang++-19 -std=c++17 -fno-exceptions): std::thread,
//! std::condition_variable, static-local guards and the abort paths.

mod natives_support;

use natives_support::expect;
use tso_engine::CheckReport;

fn says(reports: &[CheckReport], what: &str) {
    for r in reports {
        let msg = r
            .failure
            .as_ref()
            .map(|f| f.message.clone())
            .unwrap_or_default();
        assert!(
            msg.contains(what),
            "message `{msg}` does not mention `{what}`"
        );
    }
}
use tso_engine::ErrorKind;

#[test]
fn threads_join_and_detach() {
    expect(
        "#include <thread>\n#include <atomic>\n#include <cassert>
        std::atomic<int> n{0};
        int main() { assert(std::thread::hardware_concurrency() > 0);
            std::thread a([] { n++; }); std::thread b([](int k) { n += k; }, 2);
            std::thread d([] {}); d.detach(); assert(!d.joinable());
            a.join(); b.join(); assert(!a.joinable()); assert(n == 3); std::this_thread::yield(); return 0; }",
        "cpp",
        None,
    );
}

#[test]
fn joining_a_joined_thread_aborts() {
    says(
        &expect(
            "#include <thread>\nint main() { std::thread t([] {}); t.join(); t.join(); return 0; }",
            "cpp",
            Some(ErrorKind::Abort),
        ),
        "not joinable",
    );
}

#[test]
fn destroying_a_joinable_thread_terminates() {
    says(
        &expect(
            "#include <thread>\nint main() { { std::thread t([] {}); } return 0; }",
            "cpp",
            Some(ErrorKind::Abort),
        ),
        "std::terminate",
    );
}

#[test]
fn unprotected_increments_race_in_std_threads() {
    expect(
        "#include <thread>\n#include <cassert>
        int n;
        int main() { std::thread a([] { int v = *(volatile int *)&n; *(volatile int *)&n = v + 1; });
            std::thread b([] { int v = *(volatile int *)&n; *(volatile int *)&n = v + 1; });
            a.join(); b.join(); assert(n == 2); return 0; }",
        "cpp",
        Some(ErrorKind::Assertion),
    );
}

const CV_PROGRAM: &str =
    "#include <thread>\n#include <mutex>\n#include <condition_variable>\n#include <cassert>
    std::mutex m; std::condition_variable cv; bool go; int done;
    void waiter() { std::unique_lock<std::mutex> l(m); cv.wait(l, [] { return go; }); done++; }
    int main() { std::thread a(waiter), b(waiter);
        { std::lock_guard<std::mutex> g(m); go = true; }
        cv.NOTIFY(); a.join(); b.join(); assert(done == 2); return 0; }";

#[test]
fn notify_all_wakes_every_waiter() {
    expect(
        &format!("#define NOTIFY notify_all\n{CV_PROGRAM}"),
        "cpp",
        None,
    );
}

#[test]
fn notify_one_can_leave_a_waiter_blocked() {
    expect(
        &format!("#define NOTIFY notify_one\n{CV_PROGRAM}"),
        "cpp",
        Some(ErrorKind::Deadlock),
    );
}

#[test]
fn static_local_initialised_once() {
    expect(
        "#include <thread>\n#include <atomic>\n#include <cassert>
        std::atomic<int> inits{0};
        int make() { return ++inits + 41; }
        int get() { static int v = make(); return v; }
        int main() { std::thread a([] { assert(get() == 42); }); assert(get() == 42); a.join(); assert(inits == 1); return 0; }",
        "cpp",
        None,
    );
}

#[test]
fn static_local_recursive_initialisation_deadlocks() {
    let r = expect("int get(int d); int get(int d) { static int v = d ? get(d - 1) : 1; return v; }\nint main() { return get(1) - 1; }", "cpp", Some(ErrorKind::Deadlock));
    says(&r, "static local");
}

#[test]
fn library_throws_abort() {
    expect(
        "#include <functional>\nint main() { std::function<void()> f; f(); return 0; }",
        "cpp",
        Some(ErrorKind::Abort),
    );
    let reports = expect(
        "#include <vector>\nint main() { std::vector<int> v(2); return v.at(5); }",
        "cpp",
        Some(ErrorKind::Abort),
    );
    says(&reports, "out_of_range");
}

#[test]
fn pure_virtual_call_aborts() {
    let r = expect(
        "struct B { B(); virtual void f() = 0; void g() { f(); } }; B::B() { g(); }
        struct D : B { void f() override {} };
        int main() { D d; return 0; }",
        "cpp",
        Some(ErrorKind::Abort),
    );
    says(&r, "pure virtual");
}
