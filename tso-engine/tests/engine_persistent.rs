//! Partial-order reduction by persistent sets (`explore/persistent.rs`): fewer states
//! where threads touch different memory, and each rule of the reduction has a program
//! that loses an outcome or an error when the rule is broken: a thread's later
//! accesses count, not only its next one (independence); a blocked thread's future is
//! left out only when it waits for the set itself (join rule); a thread going round a
//! loop is never the only one expanded, but one member moving forward is enough (cycle
//! proviso).

mod engine_support;

use engine_support::{check_bc, compile, options};
use tso_engine::{CheckReport, ErrorKind, Verdict};

const PRELUDE: &str = "#include <assert.h>\n#include <pthread.h>\n#include <stdio.h>\n";

fn run(src: &str, opt: &str, por: bool, persistent: bool, jobs: usize) -> CheckReport {
    let bc = compile(src, opt, &[]);
    let mut opts = options();
    opts.machine.por = por;
    opts.machine.persistent_sets = persistent;
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
