//! Partial-order reduction by persistent sets (`explore/persistent.rs`): fewer states
//! where threads touch different memory, and each rule of the reduction has a program
//! that loses an outcome or an error when the rule is broken: a thread's later
//! accesses count, not only its next one (independence); a blocked thread's future is
//! left out only when it waits for the set itself (join rule); a thread going round a
//! loop is never the only one expanded, but one member moving forward is enough (cycle
//! proviso); a mutex native touches its mutex alone, and a thread's future stops at a
//! lock of a mutex held by a thread that does not move, unless something outside
//! writes that mutex (mutex rules).

mod engine_support;

use engine_support::{check_bc, compile, options};
use tso_engine::{CheckReport, ErrorKind, Verdict};

const PRELUDE: &str = "#include <assert.h>\n#include <pthread.h>\n#include <stdio.h>\n";

fn run(src: &str, opt: &str, por: bool, persistent: bool, jobs: usize) -> CheckReport {
    let bc = compile(src, opt, &[]);
    let mut opts = options();
    opts.machine.por = por;
    opts.machine.persistent_sets = persistent;
    // Persistent sets switch awaits off; so does the full search here, so that the two
    // differ only by the reduction under test.
    opts.machine.awaits = false;
    opts.jobs = jobs;
    opts.collect_outcomes = true;
    check_bc(&bc, &opts)
}

/// The full search and the reduced one on one and two workers: the same verdict,
/// error kind and outcomes, never more states or transitions, the same state count
/// on both worker counts. Returns (states reduced, states full).
fn compare(src: &str, opt: &str) -> (u64, u64) {
    let full = run(src, opt, false, false, 1);
    let mut states = Vec::new();
    for jobs in [1, 2] {
        let reduced = run(src, opt, true, true, jobs);
        assert_eq!(reduced.verdict, full.verdict, "-j{jobs}");
        assert_eq!(
            reduced.failure.as_ref().map(|f| f.kind),
            full.failure.as_ref().map(|f| f.kind),
            "-j{jobs}"
        );
        assert_eq!(reduced.outcomes, full.outcomes, "-j{jobs}");
        if full.verdict == Verdict::Pass {
            assert!(reduced.stats.states <= full.stats.states, "-j{jobs}");
            assert!(
                reduced.stats.transitions <= full.stats.transitions,
                "-j{jobs}"
            );
        }
        states.push(reduced.stats.states);
    }
    assert_eq!(states[0], states[1], "one and two workers");
    (states[0], full.stats.states)
}

#[test]
fn threads_writing_different_globals_need_fewer_states() {
    let src = format!(
        "{PRELUDE}volatile int a, b, c;
void *ta(void *p) {{ a = 1; a = 2; a = 3; return p; }}
void *tb(void *p) {{ b = 1; b = 2; b = 3; return p; }}
void *tc(void *p) {{ c = 1; c = 2; c = 3; return p; }}
int main() {{
  pthread_t x, y, z;
  pthread_create(&x, 0, ta, 0); pthread_create(&y, 0, tb, 0); pthread_create(&z, 0, tc, 0);
  pthread_join(x, 0); pthread_join(y, 0); pthread_join(z, 0);
  printf(\"%d %d %d\\n\", a, b, c);
  return 0;
}}
"
    );
    let (reduced, full) = compare(&src, "-O1");
    assert!(reduced < full, "{reduced} states with, {full} without");
}

/// Thread 2's next store is to `y`, its later one to `x`, which thread 1 reads: judged
/// by next transitions alone, thread 1's read would be the only one expanded and the
/// outcome where it sees `x == 1` lost.
#[test]
fn a_later_access_of_another_thread_counts() {
    let src = format!(
        "{PRELUDE}volatile int x, y, r;
void *t1(void *p) {{ r = x; return p; }}
void *t2(void *p) {{ y = 1; x = 1; return p; }}
int main() {{
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0); pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0); pthread_join(b, 0);
  printf(\"r=%d\\n\", r);
  return 0;
}}
"
    );
    compare(&src, "-O1");
    let full = run(&src, "-O1", false, false, 1);
    assert!(full.outcomes.iter().any(|o| o.contains("r=1")));
    assert!(full.outcomes.iter().any(|o| o.contains("r=0")));
}

/// Main waits for thread 1, then reads `x`, which thread 2 writes. Main may read
/// before thread 2 writes only if thread 1 ends first: leaving main out because it is
/// blocked (rather than blocked on the set) would expand thread 2 alone (thread 1
/// alone conflicts with thread 2's later read of `s`) and lose `r=0`. The flag keeps
/// thread 1 from ending before both threads exist.
#[test]
fn a_blocked_thread_counts_unless_it_waits_for_the_set() {
    let src = format!(
        "{PRELUDE}volatile int x, s, r2, go;
void *t1(void *p) {{ while (!go) ; s = 1; return p; }}
void *t2(void *p) {{ x = 1; r2 = s; return p; }}
int main() {{
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0); pthread_create(&b, 0, t2, 0);
  go = 1;
  pthread_join(a, 0);
  int r = x;
  pthread_join(b, 0);
  printf(\"r=%d\\n\", r);
  return 0;
}}
"
    );
    compare(&src, "-O1");
    let full = run(&src, "-O1", false, false, 1);
    assert!(full.outcomes.iter().any(|o| o.contains("r=0")));
    assert!(full.outcomes.iter().any(|o| o.contains("r=1")));
}

/// Thread 1 loops forever on its own global while main waits for it; thread 2 fails
/// an assertion. Thread 1's transitions are independent of everything thread 2 does:
/// without the cycle proviso thread 1 alone would be expanded round its loop and the
/// failure never reached.
#[test]
fn a_thread_going_round_a_loop_does_not_hide_the_others() {
    let src = format!(
        "{PRELUDE}volatile int y, z;
void *t1(void *p) {{ for (;;) {{ y = 1; y = 0; }} return p; }}
void *t2(void *p) {{ z = 1; assert(z == 0); return p; }}
int main() {{
  pthread_t a, b;
  pthread_create(&a, 0, t1, 0); pthread_create(&b, 0, t2, 0);
  pthread_join(a, 0);
  return 0;
}}
"
    );
    for jobs in [1, 2] {
        let reduced = run(&src, "-O1", true, true, jobs);
        assert_eq!(reduced.verdict, Verdict::Fail, "-j{jobs}");
        assert_eq!(
            reduced.failure.as_ref().map(|f| f.kind),
            Some(ErrorKind::Assertion),
            "-j{jobs}"
        );
    }
    compare(&src, "-O1");
}

/// Thread 1 spins on `flag`, which thread 2 sets after writing `w`; thread 3 writes
/// `z` alone. Every set that holds thread 2 holds the spinner (it reads what thread 2
/// writes), and main waits for the spinner. The spin does not move thread 1 forward,
/// but thread 2's transitions do: one advancing member is enough for the cycle proviso
/// (a chain of such steps cannot come back), so thread 3 is left out and fewer states
/// are stored, with the same outcomes. With no advancing member the set is refused:
/// `a_thread_going_round_a_loop_does_not_hide_the_others` fails without that.
#[test]
fn one_member_moving_forward_is_enough_for_the_proviso() {
    let src = format!(
        "{PRELUDE}volatile int flag, w, z;
void *t1(void *p) {{ while (!flag) {{}} return p; }}
void *t2(void *p) {{ w = 1; w = 2; flag = 1; return p; }}
void *t3(void *p) {{ z = 1; z = 2; z = 3; return p; }}
int main() {{
  pthread_t a, b, c;
  pthread_create(&a, 0, t1, 0); pthread_create(&b, 0, t2, 0); pthread_create(&c, 0, t3, 0);
  pthread_join(a, 0); pthread_join(b, 0); pthread_join(c, 0);
  printf(\"%d %d\\n\", w, z);
  return 0;
}}
"
    );
    let (reduced, full) = compare(&src, "-O1");
    assert!(reduced < full, "{reduced} states with, {full} without");
}

/// A deadlock between two locks is found, and a thread blocked on a lock held by the
/// set is left out.
#[test]
fn a_deadlock_between_locks_is_found() {
    let src = format!(
        "{PRELUDE}pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
volatile int a, b;
void *t1(void *p) {{ pthread_mutex_lock(&m1); a = 1; pthread_mutex_lock(&m2);
  pthread_mutex_unlock(&m2); pthread_mutex_unlock(&m1); return p; }}
void *t2(void *p) {{ pthread_mutex_lock(&m2); b = 1; pthread_mutex_lock(&m1);
  pthread_mutex_unlock(&m1); pthread_mutex_unlock(&m2); return p; }}
int main() {{
  pthread_t x, y;
  pthread_create(&x, 0, t1, 0); pthread_create(&y, 0, t2, 0);
  pthread_join(x, 0); pthread_join(y, 0);
  return 0;
}}
"
    );
    compare(&src, "-O1");
    let reduced = run(&src, "-O1", true, true, 1);
    assert_eq!(
        reduced.failure.as_ref().map(|f| f.kind),
        Some(ErrorKind::Deadlock)
    );
}

/// Thread symmetry with the reduction: identical workers, same outcomes.
#[test]
fn the_reduction_works_with_thread_symmetry() {
    let src = format!(
        "{PRELUDE}volatile int n[3];
void *w(void *p) {{ int i = (int)(long)p; n[i] = 1; n[i] = 2; return 0; }}
int main() {{
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], 0, w, (void *)i);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  printf(\"%d %d %d\\n\", n[0], n[1], n[2]);
  return 0;
}}
"
    );
    compare(&src, "-O0");
    compare(&src, "-O2");
}

/// Two threads under two different mutexes: a lock or unlock touches its own mutex
/// alone, so each thread's critical section is independent of the other's and fewer
/// states are stored. Counted as touching everything, nothing would be left out.
#[test]
fn locks_of_different_mutexes_are_independent() {
    let src = format!(
        "{PRELUDE}pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
volatile int a, b;
void *t1(void *p) {{ pthread_mutex_lock(&m1); a = 1; a = 2; pthread_mutex_unlock(&m1); return p; }}
void *t2(void *p) {{ pthread_mutex_lock(&m2); b = 1; b = 2; pthread_mutex_unlock(&m2); return p; }}
int main() {{
  pthread_t x, y;
  pthread_create(&x, 0, t1, 0); pthread_create(&y, 0, t2, 0);
  pthread_join(x, 0); pthread_join(y, 0);
  printf(\"%d %d\\n\", a, b);
  return 0;
}}
"
    );
    let (reduced, full) = compare(&src, "-O0");
    assert!(reduced < full, "{reduced} states with, {full} without");
}

/// Thread 2's trylock of `m` must count as an access of `m` in its future: judged as
/// touching nothing, thread 1's lock would be expanded alone at the start and the
/// outcome where thread 2 takes the mutex first (`got=1 seen=0` with thread 1 after
/// it) lost.
#[test]
fn a_later_lock_of_the_same_mutex_counts() {
    let src = format!(
        "{PRELUDE}pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile int a, got, seen = -1, first;
void *t1(void *p) {{ pthread_mutex_lock(&m); if (!got) first = 1; a = 1; pthread_mutex_unlock(&m); return p; }}
void *t2(void *p) {{ if (pthread_mutex_trylock(&m) == 0) {{ got = 1; seen = a; pthread_mutex_unlock(&m); }} return p; }}
int main() {{
  pthread_t x, y;
  pthread_create(&x, 0, t1, 0); pthread_create(&y, 0, t2, 0);
  pthread_join(x, 0); pthread_join(y, 0);
  printf(\"got=%d seen=%d first=%d\\n\", got, seen, first);
  return 0;
}}
"
    );
    compare(&src, "-O0");
    let full = run(&src, "-O0", false, false, 1);
    assert!(full
        .outcomes
        .iter()
        .any(|o| o.contains("got=1 seen=0 first=0")));
}

/// Thread 2 waits for `flag`, set by thread 1 inside its critical section, and then
/// locks `m`, after which it writes `a` as thread 1 does. While thread 1 holds `m`,
/// thread 2's future stops at that lock: its writes of `c` are independent of thread
/// 1's, and fewer states are stored (without the cut thread 2 conflicts through `a`).
#[test]
fn a_future_stops_at_a_lock_the_set_holds() {
    let src = format!(
        "{PRELUDE}pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile int flag, a, c;
void *t1(void *p) {{ pthread_mutex_lock(&m); flag = 1; a = 1; a = 2; a = 3; pthread_mutex_unlock(&m); return p; }}
void *t2(void *p) {{ while (!flag) {{}} c = 1; c = 2; pthread_mutex_lock(&m); a = 4; pthread_mutex_unlock(&m); return p; }}
int main() {{
  pthread_t x, y;
  pthread_create(&x, 0, t1, 0); pthread_create(&y, 0, t2, 0);
  pthread_join(x, 0); pthread_join(y, 0);
  printf(\"%d %d\\n\", a, c);
  return 0;
}}
"
    );
    let (reduced, full) = compare(&src, "-O0");
    assert!(reduced < full, "{reduced} states with, {full} without");
}

/// Thread 2's future may stop at its lock of `m` only while `m`'s holder does not
/// move: here thread 1 holds it outside the set ({thread 3}, which main waits for)
/// and releases it, and thread 2 then reads `x` before thread 3 writes it (thread 1
/// starts once every thread exists, so it cannot finish before thread 3). Stopping
/// there (any held mutex, whoever holds it) would expand thread 3 alone and lose
/// `after=1 x=0`.
#[test]
fn a_future_stops_only_at_a_lock_held_by_a_thread_that_does_not_move() {
    let src = format!(
        "{PRELUDE}pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile int x, go, done1, after = -1, r = -1;
void *t1(void *p) {{ while (!go) {{}} pthread_mutex_lock(&m); done1 = 1; pthread_mutex_unlock(&m); return p; }}
void *t2(void *p) {{ pthread_mutex_lock(&m); r = x; after = done1; pthread_mutex_unlock(&m); return p; }}
void *t3(void *p) {{ x = 1; return p; }}
int main() {{
  pthread_t a, b, c;
  pthread_create(&a, 0, t1, 0); pthread_create(&b, 0, t2, 0); pthread_create(&c, 0, t3, 0);
  go = 1;
  pthread_join(c, 0); pthread_join(a, 0); pthread_join(b, 0);
  printf(\"after=%d x=%d\\n\", after, r);
  return 0;
}}
"
    );
    compare(&src, "-O0");
    let full = run(&src, "-O0", false, false, 1);
    assert!(full.outcomes.iter().any(|o| o.contains("after=1 x=0")));
}

/// A held mutex stays held only if nothing outside the set writes it other than by
/// locking it: thread 3 clears `m` (as a re-initialisation would) while thread 1, which
/// never unlocks, is between its writes of `a`, and thread 2 then takes `m` and sees
/// `a == 1`. With thread 2's future cut at its lock and thread 3's write of `m` not
/// checked, thread 1 would run alone between its writes and `r=1` be lost.
#[test]
fn a_plain_write_of_a_held_mutex_counts() {
    let src = format!(
        "{PRELUDE}#include <string.h>
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
volatile int a, locked1, reset, r = -1;
void *t1(void *p) {{ pthread_mutex_lock(&m); locked1 = 1; a = 1; a = 2; return p; }}
void *t2(void *p) {{ while (!reset) {{}} pthread_mutex_lock(&m); r = a; pthread_mutex_unlock(&m); return p; }}
void *t3(void *p) {{ while (!locked1) {{}} memset(&m, 0, sizeof m); reset = 1; return p; }}
int main() {{
  pthread_t x, y, z;
  pthread_create(&x, 0, t1, 0); pthread_create(&y, 0, t2, 0); pthread_create(&z, 0, t3, 0);
  pthread_join(x, 0); pthread_join(y, 0); pthread_join(z, 0);
  printf(\"r=%d\\n\", r);
  return 0;
}}
"
    );
    compare(&src, "-O0");
    let full = run(&src, "-O0", false, false, 1);
    assert!(full.outcomes.iter().any(|o| o.contains("r=1")));
}
