//! Dynamic partial-order reduction (`explore/dpor.rs`) and the footprints of thread
//! creation, joins and ends (`Machine::run_transition_observed`): the reduction stores
//! fewer states where workers touch different memory (a creation or an end touching
//! everything made every worker's first step race with `main`'s last creation, and
//! reduced nothing), and on programs whose outcomes depend on the order of a creation,
//! a join or an end against another thread's steps, it finds every outcome, error and
//! verdict of the full search.

mod engine_support;

use engine_support::{check_bc, compile, options};
use tso_engine::CheckReport;

const PRELUDE: &str =
    "#include <assert.h>\n#include <pthread.h>\n#include <stdio.h>\n#include <stdatomic.h>\n";

fn run(src: &str, opt: &str, dpor: bool) -> CheckReport {
    let bc = compile(&format!("{PRELUDE}{src}"), opt, &[]);
    let mut opts = options();
    opts.machine.dpor = dpor;
    // The reduction turns symmetry and sleep sets off: so does the full search here.
    opts.machine.symmetry = false;
    opts.machine.por = false;
    opts.collect_outcomes = true;
    check_bc(&bc, &opts)
}

/// The full search and the reduced one: the same verdict, error kind and outcomes,
/// never more states. Returns (states reduced, states full).
fn compare(src: &str) -> (u64, u64) {
    compare_at(src, "-O1")
}

fn compare_at(src: &str, opt: &str) -> (u64, u64) {
    let full = run(src, opt, false);
    let reduced = run(src, opt, true);
    assert_eq!(reduced.verdict, full.verdict);
    assert_eq!(
        reduced.failure.as_ref().map(|f| f.kind),
        full.failure.as_ref().map(|f| f.kind)
    );
    assert_eq!(reduced.outcomes, full.outcomes);
    assert!(reduced.stats.states <= full.stats.states);
    (reduced.stats.states, full.stats.states)
}

#[test]
fn workers_on_their_own_globals_need_fewer_states() {
    // Each worker writes its own global twice: every order of their steps reaches a
    // state of its own in the full search; the reduction needs one order. With a
    // creation touching everything, each worker's first step raced with `main`'s
    // next creation and every node of the creations expanded every worker (54
    // states against 58 then). `main` leaves by `pthread_exit`: no join, no exit of
    // the process while workers run.
    let (reduced, full) = compare(
        r#"
atomic_int a, b, c;
static void *wa(void *p) { atomic_store(&a, 1); atomic_store(&a, 2); return 0; }
static void *wb(void *p) { atomic_store(&b, 1); atomic_store(&b, 2); return 0; }
static void *wc(void *p) { atomic_store(&c, 1); atomic_store(&c, 2); return 0; }
int main(void) {
  pthread_t t[3];
  pthread_create(&t[0], 0, wa, 0);
  pthread_create(&t[1], 0, wb, 0);
  pthread_create(&t[2], 0, wc, 0);
  pthread_exit(0);
}
"#,
    );
    assert!(reduced * 2 < full, "{reduced} states against {full}");
}

#[test]
fn an_end_that_runs_main_on_still_races_with_an_earlier_read() {
    // `b` is created after `a` and writes `x`; `a` may read `x` before or after
    // `main`'s write and `b`'s: three outcomes. When `a` has ended and `main` has
    // joined it, `b`'s end leaves `main` alone, and `main`'s join, print and exit run
    // in `b`'s step: `main`'s part is ordered after `a` through the join, `b`'s write
    // is not. Such a folded step is ordered after no step by dependence (the rule
    // `folded` in `dpor::new_step`): without it the order in which `a` reads 5 is lost.
    compare(
        r#"
atomic_int x, seen;
static void *a(void *p) { atomic_store(&seen, atomic_load(&x) + 1); return 0; }
static void *b(void *p) { atomic_store(&x, 5); return 0; }
int main(void) {
  pthread_t t[2];
  pthread_create(&t[0], 0, a, 0);
  atomic_store(&x, 1);
  pthread_create(&t[1], 0, b, 0);
  pthread_join(t[0], 0);
  pthread_join(t[1], 0);
  printf("%d\n", atomic_load(&seen));
  return 0;
}
"#,
    );
}

#[test]
fn a_handle_read_before_the_creation_stored_it_is_an_error() {
    // `a` joins the thread whose handle `main` stores by creating it: read before
    // the creation, the handle is no thread's (an error the full search finds). The
    // creation writes the handle's slot.
    compare(
        r#"
pthread_t h;
atomic_int x;
static void *b(void *p) { atomic_store(&x, 1); return 0; }
static void *a(void *p) { pthread_join(h, 0); return 0; }
int main(void) {
  pthread_t ta;
  pthread_create(&ta, 0, a, 0);
  pthread_create(&h, 0, b, 0);
  pthread_join(ta, 0);
  return 0;
}
"#,
    );
}

#[test]
fn a_join_waits_for_the_end_of_the_joined_thread() {
    // `main` joins `w`, then writes `x`; `obs` reads `x` before `w`'s write, between
    // it and `main`'s, or after both. The join reads `w`'s end, which `w`'s last step
    // writes: `main`'s write happens after `w`'s.
    compare(
        r#"
atomic_int x, r;
static void *w(void *p) { atomic_store(&x, 1); return 0; }
static void *obs(void *p) { atomic_store(&r, atomic_load(&x) + 10); return 0; }
int main(void) {
  pthread_t t[2];
  pthread_create(&t[0], 0, w, 0);
  pthread_create(&t[1], 0, obs, 0);
  pthread_join(t[0], 0);
  atomic_store(&x, 2);
  pthread_join(t[1], 0);
  printf("%d %d\n", atomic_load(&r), atomic_load(&x));
  return 0;
}
"#,
    );
}

#[test]
fn the_thread_left_alone_runs_on_in_the_end_of_the_other() {
    // When `w` ends, `main` runs alone: its remaining steps (the read of `y` and the
    // print) run as part of `w`'s end. `main`'s read of `y` before and after `w`'s
    // write, and its write of `x` before and after `w`'s read, give four outcomes.
    compare(
        r#"
atomic_int x, y, seen;
static void *w(void *p) { atomic_store(&seen, atomic_load(&x)); atomic_store(&y, 1); return 0; }
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, w, 0);
  atomic_store(&x, 1);
  int r = atomic_load(&y);
  pthread_join(t, 0);
  printf("%d %d\n", r, atomic_load(&seen));
  return 0;
}
"#,
    );
}

#[test]
fn the_joins_of_a_folded_step_order_nothing_before_the_ending_thread() {
    // At -O2 each worker is one step, its CAS and its end; the last worker's end runs
    // `main` on through its three joins and the assert. Those joins are `main`'s: the
    // ending worker's CAS is not ordered after the other workers' CASes by them
    // (without the rule, the one failing order a, b, c is never tried).
    let src = r#"
volatile int stage;
static void *step_a(void *p) { __sync_val_compare_and_swap(&stage, 0, 1); return 0; }
static void *step_b(void *p) { __sync_val_compare_and_swap(&stage, 1, 2); return 0; }
static void *step_c(void *p) { __sync_val_compare_and_swap(&stage, 2, 3); return 0; }
int main(void) {
  pthread_t t[3];
  pthread_create(&t[2], 0, step_c, 0);
  pthread_create(&t[1], 0, step_b, 0);
  pthread_create(&t[0], 0, step_a, 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  assert(stage != 3);
  return 0;
}
"#;
    compare_at(src, "-O2");
    assert_eq!(run(src, "-O2", true).verdict, tso_engine::Verdict::Fail);
}

#[test]
fn a_cancel_request_races_with_the_cancellation_point_of_the_thread() {
    // `w`'s cancellation point reads only its own flags, which `main`'s request
    // changes: the step reads `w`'s own state, the request writes it. Before the
    // point `w` is cancelled and never stores; after it, it stores and ends normally.
    // Cancelled, `w` ends only after `main`'s write of `go` (its cleanup handler waits
    // for it): its end, which the request reads, is no race with the request, so only
    // the point can be.
    let src = r#"
atomic_int r, go;
static void wait_go(void *p) { while (!atomic_load(&go)) ; }
static void *w(void *p) {
  pthread_cleanup_push(wait_go, 0);
  pthread_testcancel();
  pthread_cleanup_pop(0);
  atomic_store(&r, 1);
  return 0;
}
int main(void) {
  pthread_t t;
  void *res;
  pthread_create(&t, 0, w, 0);
  pthread_cancel(t);
  atomic_store(&go, 1);
  pthread_join(t, &res);
  printf("%d %d\n", atomic_load(&r), res == PTHREAD_CANCELED);
  return 0;
}
"#;
    compare(src);
    let outcomes = run(src, "-O1", true).outcomes;
    assert!(
        outcomes.iter().any(|o| o.contains("0 1")) && outcomes.iter().any(|o| o.contains("1 0")),
        "{outcomes:?}"
    );
}

#[test]
fn a_detach_is_ordered_against_a_join_of_the_same_thread() {
    // `j` joins `t` and `d` detaches it: joined first, the detach passes; detached
    // first, the join is a misuse. Neither call reads what the other writes in memory:
    // both change `t` (its joined or detached flag), so both write `t`'s end object and
    // own state (the join reads its end), and they race. `main` joins `j` and `d`, so
    // no end leaves one thread running alone before both calls ran.
    let src = r#"
pthread_t h;
static void *t(void *p) { return 0; }
static void *j(void *p) { pthread_join(h, 0); return 0; }
static void *d(void *p) { pthread_detach(h); return 0; }
int main(void) {
  pthread_t o[2];
  pthread_create(&h, 0, t, 0);
  pthread_create(&o[0], 0, j, 0);
  pthread_create(&o[1], 0, d, 0);
  pthread_join(o[0], 0);
  pthread_join(o[1], 0);
  return 0;
}
"#;
    compare(src);
    let full = run(src, "-O1", false);
    assert_eq!(
        full.failure.map(|f| f.kind),
        Some(tso_engine::ErrorKind::PthreadMisuse)
    );
}
