//! Exploration: interleavings, deadlock, pruning, choices, canonical states,
//! determinism and limits.

mod engine_support;

use engine_support::{
    assert_failure, assert_pass, check_bc, check_with, compile, line_of, options, ALL_OPTS,
};
use std::time::Duration;
use tso_engine::{CheckOptions, ErrorKind, Verdict};

const PRELUDE: &str = "#include <assert.h>\n#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <tso.h>\nvoid __VERIFIER_assume(int);\n";

/// Three threads append their id to `order` under a lock; `bad` is the one order
/// (of six) that trips the assertion.
fn three_threads(bad: &str) -> String {
    format!("{PRELUDE}pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; int order;
void *worker(void *arg) {{ int id = (int)(long)arg; pthread_mutex_lock(&m); order = order * 10 + id; pthread_mutex_unlock(&m); return NULL; }}
int main(void) {{ pthread_t t[3];
    for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, worker, (void *)(i + 1));
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    printf(\"order %d\\n\", order);
    assert(order != {bad}); /*HERE*/
    return 0; }}")
}

/// Checks `src` at every optimisation level with outcomes collected: each run passes
/// and its outcomes (outputs of the complete paths) are exactly `want`.
fn assert_passes_with_outcomes(src: &str, want: &[String]) {
    let want: std::collections::BTreeSet<String> = want.iter().cloned().collect();
    let mut opts = options();
    opts.collect_outcomes = true;
    for opt in ALL_OPTS {
        let r = check_with(src, opt, &[], &opts);
        assert_pass(&r, opt);
        assert_eq!(r.outcomes, want, "{opt}");
    }
}

#[test]
fn assertion_failing_in_one_interleaving_of_three_threads_is_found() {
    for bad in ["231", "312", "123"] {
        let src = three_threads(bad);
        for opt in ALL_OPTS {
            let r = check_with(&src, opt, &[], &options());
            assert_failure(
                &r,
                ErrorKind::Assertion,
                Some(line_of(&src, "/*HERE*/")),
                opt,
            );
            assert_eq!(
                r.output,
                format!("order {bad}\n"),
                "{opt}: output of the failing path"
            );
            let cex = r.counterexample.as_ref().expect("counterexample");
            let threads: std::collections::BTreeSet<u32> =
                cex.steps.iter().map(|s| s.thread).collect();
            assert_eq!(
                threads.len(),
                4,
                "{opt}: the trace shows main and the three workers"
            );
        }
    }
}

#[test]
fn all_six_orders_are_explored_when_none_fails() {
    let orders = ["123", "132", "213", "231", "312", "321"];
    assert_passes_with_outcomes(
        &three_threads("999"),
        &orders.map(|o| format!("order {o}\n")),
    );
}

#[test]
fn lock_order_inversion_deadlocks() {
    let src = format!("{PRELUDE}pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
void *other(void *arg) {{ pthread_mutex_lock(&b); pthread_mutex_lock(&a); pthread_mutex_unlock(&a); pthread_mutex_unlock(&b); return arg; }}
int main(void) {{ pthread_t t; pthread_create(&t, NULL, other, NULL);
    pthread_mutex_lock(&a); pthread_mutex_lock(&b); pthread_mutex_unlock(&b); pthread_mutex_unlock(&a);
    pthread_join(t, NULL); return 0; }}");
    for opt in ALL_OPTS {
        let r = check_with(&src, opt, &[], &options());
        assert_failure(&r, ErrorKind::Deadlock, None, opt);
        let line = engine_support::error_line(&r);
        assert!(
            line == Some(8) || line == Some(10),
            "{opt}: deadlock at a lock call, got {line:?}"
        );
    }
}

#[test]
fn assume_false_prunes_paths_instead_of_deadlocking() {
    let src = format!(
        "{PRELUDE}int x;
void *t(void *arg) {{ x = 1; return arg; }}
int main(void) {{ pthread_t th; pthread_create(&th, NULL, t, NULL);
    int c = tso_choose(3);
    if (c != 1) __VERIFIER_assume(0);
    pthread_join(th, NULL);
    printf(\"c=%d\\n\", c);
    __VERIFIER_assume(x == 1);
    assert(c == 1);
    return 0; }}"
    );
    assert_passes_with_outcomes(&src, &["c=1\n".to_string()]);
    // Every path pruned is still a pass, not a deadlock.
    let all_pruned =
        format!("{PRELUDE}int main(void) {{ __VERIFIER_assume(0); assert(0); return 0; }}");
    assert_pass(
        &check_with(&all_pruned, "-O0", &[], &options()),
        "all pruned",
    );
}

#[test]
fn tso_choose_explores_every_branch() {
    let src = format!(
        "{PRELUDE}int main(void) {{ int a = tso_choose(3); int b = tso_choose(2);
    printf(\"%d%d\\n\", a, b); return 0; }}"
    );
    let choices = ["00", "01", "10", "11", "20", "21"];
    assert_passes_with_outcomes(&src, &choices.map(|o| format!("{o}\n")));
    // And an assertion on one branch is found with that branch's output.
    let bad = format!("{PRELUDE}int main(void) {{ int a = tso_choose(3); printf(\"a=%d\\n\", a); assert(a != 2); return 0; }}");
    let r = check_with(&bad, "-O0", &[], &options());
    assert_failure(&r, ErrorKind::Assertion, Some(7), "choose");
    assert_eq!(r.output, "a=2\n");
}

/// Two threads each get a block and publish it, then write it. With `heap` the blocks
/// come from malloc, whose object numbers depend on which thread ran first; otherwise
/// they are two fixed globals, fetched through an invisible call like malloc is.
/// Canonical states make both state spaces the same size.
fn publish_blocks(heap: bool) -> String {
    let get = |g: &str| {
        if heap {
            "malloc(sizeof(int))".to_string()
        } else {
            format!("id(&{g})")
        }
    };
    format!("{PRELUDE}int *slot[2]; int A, B;
__attribute__((noinline)) static int *id(int *p) {{ __asm__ volatile(\"\" ::: \"memory\"); return p; }}
void *ta(void *arg) {{ int *m = {}; slot[0] = m; *m = 1; return arg; }}
void *tb(void *arg) {{ int *m = {}; slot[1] = m; *m = 2; return arg; }}
int main(void) {{ pthread_t a, b; pthread_create(&a, NULL, ta, NULL); pthread_create(&b, NULL, tb, NULL);
    pthread_join(a, NULL); pthread_join(b, NULL); assert(*slot[0] + *slot[1] == 3); return 0; }}", get("A"), get("B"))
}

#[test]
fn allocation_order_does_not_split_states() {
    for opt in ALL_OPTS {
        let heap = check_with(&publish_blocks(true), opt, &[], &options());
        let fixed = check_with(&publish_blocks(false), opt, &[], &options());
        assert_pass(&heap, opt);
        assert_pass(&fixed, opt);
        assert!(
            fixed.stats.states > 5,
            "{opt}: {} states",
            fixed.stats.states
        );
        assert_eq!(
            heap.stats.states, fixed.stats.states,
            "{opt}: malloc order split states"
        );
    }
}

#[test]
fn states_and_trace_are_deterministic() {
    let src = format!("{PRELUDE}int x, y;
void *t1(void *arg) {{ x = 1; y = x + 1; return arg; }}
void *t2(void *arg) {{ int r = y; x = r * 3; return arg; }}
int main(void) {{ pthread_t a, b; pthread_create(&a, NULL, t1, NULL); pthread_create(&b, NULL, t2, NULL);
    pthread_join(a, NULL); pthread_join(b, NULL); printf(\"%d %d\\n\", x, y); assert(x != 6); /*HERE*/ return 0; }}");
    for opt in ["-O0", "-O2"] {
        let bc = compile(&src, opt, &[]);
        let runs: Vec<_> = (0..5).map(|_| check_bc(&bc, &options())).collect();
        assert_failure(
            &runs[0],
            ErrorKind::Assertion,
            Some(line_of(&src, "/*HERE*/")),
            opt,
        );
        for r in &runs[1..] {
            assert_eq!(r.verdict, runs[0].verdict, "{opt}");
            assert_eq!(r.stats.states, runs[0].stats.states, "{opt}: state count");
            assert_eq!(
                r.stats.transitions, runs[0].stats.transitions,
                "{opt}: transitions"
            );
            assert_eq!(
                r.counterexample.as_ref().map(|c| &c.steps),
                runs[0].counterexample.as_ref().map(|c| &c.steps),
                "{opt}: trace"
            );
            assert_eq!(r.output, runs[0].output, "{opt}");
        }
        // A passing variant: the full state count is deterministic too.
        let pass = src.replace("assert(x != 6)", "assert(x != 7)");
        let bc = compile(&pass, opt, &[]);
        let counts: Vec<u64> = (0..5)
            .map(|_| check_bc(&bc, &options()).stats.states)
            .collect();
        assert!(
            counts.iter().all(|&c| c == counts[0] && c > 1),
            "{opt}: {counts:?}"
        );
    }
}

/// One worker searches depth-first and several breadth-first: a passing run stores the
/// same states either way, and a failing one reports the same (shortest) trace, because
/// an error the depth-first search finds is explained by the breadth-first one.
#[test]
fn one_worker_and_several_agree_on_states_and_trace() {
    for (text, fails) in [(three_threads("312"), true), (three_threads("999"), false)] {
        let bc = compile(&text, "-O1", &[]);
        let runs: Vec<_> = [1, 2, 3]
            .iter()
            .map(|&jobs| {
                let mut o = options();
                o.jobs = jobs;
                check_bc(&bc, &o)
            })
            .collect();
        if fails {
            assert_failure(
                &runs[0],
                ErrorKind::Assertion,
                Some(line_of(&text, "/*HERE*/")),
                "-O1",
            );
        } else {
            assert_pass(&runs[0], "-O1");
        }
        for (r, jobs) in runs.iter().zip([1, 2, 3]).skip(1) {
            assert_eq!(r.verdict, runs[0].verdict, "jobs {jobs}");
            assert_eq!(r.stats.states, runs[0].stats.states, "jobs {jobs}: states");
            assert_eq!(
                r.counterexample.as_ref().map(|c| &c.steps),
                runs[0].counterexample.as_ref().map(|c| &c.steps),
                "jobs {jobs}: trace"
            );
        }
    }
}

/// A path of states too large to hold (here, a long sequence of visible steps) sends the
/// one-worker search breadth-first: the result is the one several workers get.
#[test]
fn a_state_space_too_deep_for_the_stack_is_searched_breadth_first() {
    let src = format!("{PRELUDE}#include <stdatomic.h>
atomic_int c; int pad[64];
void *count(void *arg) {{ for (int i = 0; i < 120000; i++) atomic_store(&c, i); return arg; }}
int main(void) {{ pthread_t t; pthread_create(&t, NULL, count, NULL); pthread_join(t, NULL); return 0; }}");
    let bc = compile(&src, "-O1", &[]);
    let runs: Vec<_> = [1, 2]
        .iter()
        .map(|&jobs| {
            let mut o = options();
            o.jobs = jobs;
            check_bc(&bc, &o)
        })
        .collect();
    assert_pass(&runs[0], "one worker");
    assert_pass(&runs[1], "two workers");
    assert_eq!(runs[0].stats.states, runs[1].stats.states);
    assert!(runs[0].stats.states > 120_000, "{}", runs[0].stats.states);
    // Breadth-first: the deepest level is the length of the one path, not a stack.
    assert_eq!(runs[0].stats.max_depth, runs[1].stats.max_depth);
}

/// A state space far too large to finish: four threads counting independently.
fn huge() -> String {
    format!("{PRELUDE}int c[4];
void *t(void *arg) {{ long i = (long)arg; for (int k = 0; k < 100000; k++) c[i]++; return NULL; }}
int main(void) {{ pthread_t th[4]; for (long i = 0; i < 4; i++) pthread_create(&th[i], NULL, t, (void *)i);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL); return 0; }}")
}

#[test]
fn max_states_is_inconclusive() {
    let mut opts = options();
    opts.limits.max_states = Some(5_000);
    let r = check_with(&huge(), "-O0", &[], &opts);
    assert_eq!(r.verdict, Verdict::Inconclusive, "{:?}", r.failure);
    assert!(r.inconclusive_reason.is_some());
    assert!(
        r.stats.states >= 5_000 && r.stats.states < 6_000,
        "states {}",
        r.stats.states
    );
}

#[test]
fn timeout_is_inconclusive() {
    let mut opts = options();
    opts.limits.max_states = None;
    opts.limits.timeout = Some(Duration::from_millis(700));
    let r = check_with(&huge(), "-O0", &[], &opts);
    assert_eq!(r.verdict, Verdict::Inconclusive, "{:?}", r.failure);
    // The run was cut short with what it had reached, not abandoned before starting.
    assert!(
        r.stats.states > 0 && r.stats.transitions > 0,
        "{:?}",
        r.stats
    );
    assert!(
        r.inconclusive_reason
            .as_deref()
            .unwrap_or("")
            .contains("timeout"),
        "{:?}",
        r.inconclusive_reason
    );
}

#[test]
fn missing_entry_is_an_error_verdict() {
    let src = format!("{PRELUDE}int not_main(void) {{ return 0; }}");
    let r = check_with(&src, "-O0", &[], &options());
    assert_eq!(r.verdict, Verdict::Error);
    let mut opts = options();
    opts.entry = "nowhere".into();
    assert_eq!(check_with(&src, "-O0", &[], &opts).verdict, Verdict::Error);
}

#[test]
fn invisible_prefix_of_a_new_thread_adds_no_states() {
    let prog = |prefix: &str| {
        format!("{PRELUDE}int *slot; int A, B;
void *tb(void *arg) {{ {prefix} slot = &B; B = 2; return arg; }}
int main(void) {{ pthread_t b; pthread_create(&b, NULL, tb, NULL); A = 1; pthread_join(b, NULL); return 0; }}")
    };
    for opt in ["-O1", "-O2"] {
        let plain = check_with(&prog(""), opt, &[], &options());
        let prefixed = check_with(&prog("volatile int t = 0; t++;"), opt, &[], &options());
        assert_pass(&plain, opt);
        assert_eq!(
            prefixed.stats.states, plain.stats.states,
            "{opt}: a thread-local prefix split states"
        );
    }
}

/// A thread frees a block `main` reads: the use after free is the shortest error. When
/// `main` frees it too, a double free is reachable on the interleavings where the read
/// comes first; otherwise it is not.
fn frees(main_frees: bool) -> String {
    format!(
        r#"
#include <pthread.h>
#include <stdlib.h>
static int *p;
static void *freer(void *a) {{ free(p); return 0; }}
int main(void) {{
    p = malloc(sizeof *p);
    *p = 1;
    pthread_t t;
    pthread_create(&t, 0, freer, 0);
    int v = *p;
    {}
    pthread_join(t, 0);
    return v - 1;
}}
"#,
        if main_frees { "free(p);" } else { "" }
    )
}

/// `CheckOptions::target`: errors of other kinds end their paths and are listed; the
/// target is found past them, or shown unreachable (the failure is then the shortest
/// other error), the same for one worker (depth-first) and two (breadth-first).
#[test]
fn a_target_kind_is_searched_for_past_other_kinds() {
    let bc = compile(&frees(true), "-O0", &[]);
    let plain = check_bc(&bc, &options());
    assert_eq!(
        plain.failure.as_ref().map(|f| f.kind),
        Some(ErrorKind::UseAfterFree)
    );
    assert!(plain.other_kinds.is_empty());
    for jobs in [1, 2] {
        let targeted = CheckOptions {
            target: Some(ErrorKind::DoubleFree),
            jobs,
            ..options()
        };
        let r = check_bc(&bc, &targeted);
        assert_eq!(r.verdict, Verdict::Fail, "{jobs} workers");
        assert_eq!(
            r.failure.as_ref().map(|f| f.kind),
            Some(ErrorKind::DoubleFree)
        );
        assert_eq!(r.other_kinds, [ErrorKind::UseAfterFree], "{jobs} workers");
        let r = check_bc(&compile(&frees(false), "-O0", &[]), &targeted);
        assert_eq!(r.verdict, Verdict::Fail, "{jobs} workers");
        assert_eq!(
            r.failure.as_ref().map(|f| f.kind),
            Some(ErrorKind::UseAfterFree)
        );
        assert_eq!(r.other_kinds, [ErrorKind::UseAfterFree], "{jobs} workers");
    }
}

/// The hang check rebuilds stored states (`explore/liveness.rs`). With outcomes
/// collected the output is part of a state, so a rebuilt state must keep the output
/// the store kept: given an empty one, its successors were not found in the store and
/// a run that printed before a later step ended inconclusive.
#[test]
fn the_hang_check_keeps_the_output_of_rebuilt_states() {
    let src = format!(
        "{PRELUDE}int result[3]; int shared;
void *work(void *arg) {{ long i = (long)arg; result[i] = (int)i + 1; if (i == 2) shared = 1; return NULL; }}
int main(void) {{ pthread_t t[3];
    for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, work, (void *)i);
    pthread_join(t[0], NULL);
    printf(\"%d %d\\n\", result[0], shared);
    for (int i = 1; i < 3; i++) pthread_join(t[i], NULL);
    return 0; }}"
    );
    assert_passes_with_outcomes(&src, &["1 0\n".to_owned(), "1 1\n".to_owned()]);
}

/// The mark that a model stored thread numbers in memory (here: a condition wait's
/// waiter mask) matters only to thread symmetry, which is off for such a program; a
/// state reached by a consumer that waited and by one that found the item at once must
/// be stored once. Every stored state is serialised again with the mark cleared: no two
/// may then be equal.
#[test]
fn a_condition_wait_does_not_split_states() {
    use std::collections::HashSet;
    use std::sync::{Arc, Mutex};
    use tso_engine::Fingerprinter;
    let src = format!(
        "{PRELUDE}pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER; int items, taken;
void *producer(void *arg) {{ for (int i = 0; i < 2; i++) {{ pthread_mutex_lock(&m); items++;
    pthread_cond_signal(&c); pthread_mutex_unlock(&m); }} return arg; }}
void *consumer(void *arg) {{ for (int i = 0; i < 2; i++) {{ pthread_mutex_lock(&m);
    while (items == 0) pthread_cond_wait(&c, &m); items--; taken++; pthread_mutex_unlock(&m); }}
    return arg; }}
int main(void) {{ pthread_t p, q; pthread_create(&p, NULL, producer, NULL);
    pthread_create(&q, NULL, consumer, NULL); pthread_join(p, NULL); pthread_join(q, NULL);
    assert(taken == 2); return 0; }}"
    );
    for opt in ALL_OPTS {
        let seen = Arc::new(Mutex::new((HashSet::new(), 0usize, 0usize)));
        let mut opts = options();
        let s = seen.clone();
        opts.observer = Some(Arc::new(
            move |machine: &tso_engine::Machine<'_>, st: &tso_engine::State| {
                let mut cleared = st.clone();
                let marked = cleared.thread_ids_in_memory;
                cleared.thread_ids_in_memory = false;
                let key = Fingerprinter::live_registers().of(machine.program, &cleared);
                let mut s = s.lock().unwrap();
                s.0.insert(key);
                s.1 += 1;
                s.2 += marked as usize;
                Ok(())
            },
        ));
        let r = check_with(&src, opt, &[], &opts);
        assert_pass(&r, opt);
        let s = seen.lock().unwrap();
        assert!(s.2 > 0, "{opt}: no state had waited");
        assert_eq!(s.0.len(), s.1, "{opt}: states differing only in the mark");
    }
}
