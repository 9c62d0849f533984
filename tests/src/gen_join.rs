//! Random programs whose `main` starts its workers into an array of handles and joins
//! them: the shape of the join-array symmetry rule (`tso-engine/src/store/symmetry.rs`,
//! "Joining the array in another order"), for `differential_symmetry.rs` to check with
//! the rule and without it.
//!
//! `main` starts two or three workers of one routine with
//! `for (i…) pthread_create(&t[i], 0, work, ARG)`, does something before its joins,
//! joins, and prints the shared variables (an outcome). The workers' steps: plain and
//! atomic stores and loads, read-modify-writes, a mutex, spins that can hang (on one
//! read or two), assertions, roles by ticket (who comes first) and roles by index
//! (`ARG` is `i` or `&ids[i]`: workers told apart from their start, which the rule
//! refuses). The joins are the loop the rule recognises, or one of the shapes it must
//! refuse: the loop backwards, joins written out, a visible action between two joins,
//! a join's result used, a slot never joined, a worker given its own slot. `main` may hold a mutex across the
//! joins that a worker takes (the rule's condition (4)).

use crate::prng::Rng;

/// A generated program and whether its joins are the shape the rule recognises
/// (`JoinArray::find`), at some optimisation level; when not, the run with the rule
/// must be the run without it.
pub struct JoinProgram {
    pub source: String,
    pub recognised: bool,
}

pub fn generate(seed: u64) -> JoinProgram {
    let mut rng = Rng::new(seed);
    let n = 2 + rng.below(2) as usize;
    // How workers are told apart from their start: not at all, by index, by pointer
    // to their index, or by their own slot's address (which the rule refuses); or
    // given their index and never reading it.
    let arg = rng.below(5);
    let (arg_expr, me) = match arg {
        0 => ("0", "0"),
        1 => ("(void *)(long)i", "(int)(long)arg"),
        2 => ("&ids[i]", "*(int *)arg"),
        3 => ("&t[i]", "0"),
        _ => ("(void *)(long)i", "0"),
    };
    let vars = ["a", "b", "c"];
    let mut body = String::new();
    let mut reads_me = false;
    for _ in 0..1 + rng.below(3) {
        let v = *rng.pick(&vars);
        let w = *rng.pick(&vars);
        let val = rng.below(3);
        let k = 1 + rng.below(2);
        let who = rng.below(n as u64);
        let kind = rng.below(14);
        reads_me |= (10..=12).contains(&kind);
        let line = match kind {
            0 => format!("{v} = {val};"),
            1 => format!("atomic_store(&A{v}, {val});"),
            2 => format!("{{ int r = atomic_load(&A{v}); if (r == {val}) {w} = r; }}"),
            3 => format!("pthread_mutex_lock(&m); {v}++; pthread_mutex_unlock(&m);"),
            4 => format!("atomic_fetch_add(&A{v}, 1);"),
            5 => format!(
                "{{ int e = {val}; atomic_compare_exchange_strong(&A{v}, &e, {val} + 1); }}"
            ),
            6 => format!("while (atomic_load(&A{v}) == {k} && atomic_load(&stop) == 0) {{}}"),
            7 => format!("while (atomic_load(&A{v}) != {k}) {{}}"),
            8 => format!("assert(atomic_load(&A{v}) != {});", 2 + rng.below(3)),
            9 => format!("if (atomic_fetch_add(&ticket, 1) == {who}) atomic_store(&A{v}, {k});"),
            10 => format!("if (me == {who}) atomic_store(&A{v}, {k}); else {w} = me;"),
            11 => format!("if (me == {who}) while (atomic_load(&A{v}) != {k}) {{}}"),
            12 => format!(
                "atomic_fetch_add(&A{v}, me); assert(atomic_load(&A{v}) != {});",
                2 + rng.below(3)
            ),
            _ => "pthread_mutex_lock(&held); pthread_mutex_unlock(&held);".to_string(),
        };
        body.push_str("    ");
        body.push_str(&line);
        body.push('\n');
    }
    // `main` before its joins; whether it holds `held` across them.
    let holds = rng.below(5) == 0;
    let pre = match rng.below(5) {
        0 => String::new(),
        1 => "    atomic_store(&stop, 1);\n".to_string(),
        2 => format!(
            "    while (atomic_load(&ticket) < {}) {{}}\n",
            1 + rng.below(n as u64)
        ),
        3 => "    pthread_mutex_lock(&m); a++; pthread_mutex_unlock(&m);\n".to_string(),
        _ => format!("    atomic_store(&Ab, {});\n", 1 + rng.below(2)),
    };
    let join_shape = if rng.below(2) == 0 { 0 } else { rng.below(7) };
    let joins = match join_shape {
        // The loop the rule recognises.
        0 => format!("    for (int i = 0; i < {n}; i++)\n        pthread_join(t[i], 0);\n"),
        1 => format!(
            "    for (int i = {}; i >= 0; i--)\n        pthread_join(t[i], 0);\n",
            n - 1
        ),
        2 => (0..n)
            .map(|i| format!("    pthread_join(t[{i}], 0);\n"))
            .collect(),
        3 => format!(
            "    for (int i = 0; i < {n}; i++) {{\n        pthread_join(t[i], 0);\n        \
             atomic_fetch_add(&joined, 1);\n    }}\n"
        ),
        4 => format!(
            "    for (int i = 0; i < {n}; i++) {{\n        void *r;\n        \
             pthread_join(t[i], &r);\n        assert(r == 0);\n    }}\n"
        ),
        5 => format!(
            "    for (int i = 0; i < {}; i++)\n        pthread_join(t[i], 0);\n",
            n - 1
        ),
        _ => format!("    for (int i = 1; i < {n}; i++)\n        pthread_join(t[i], 0);\n"),
    };
    // Workers told apart from their start (by index, or their slot) are refused too;
    // an index nothing reads is no difference (with optimisation, `me` unused leaves
    // the argument unread).
    let recognised = join_shape == 0 && (arg == 0 || arg == 4 || (arg == 1 && !reads_me));
    let (lock, unlock) = if holds {
        (
            "    pthread_mutex_lock(&held);\n",
            "    pthread_mutex_unlock(&held);\n",
        )
    } else {
        ("", "")
    };
    let source = format!(
        r#"#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
int a, b, c;
atomic_int Aa, Ab, Ac, ticket, stop, joined;
int ids[{n}];
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER, held = PTHREAD_MUTEX_INITIALIZER;
static void *work(void *arg) {{
    int me = {me};
    (void)arg;
    (void)me;
{body}    return 0;
}}
int main(void) {{
    pthread_t t[{n}];
{lock}    for (int i = 0; i < {n}; i++) {{
        ids[i] = i;
        pthread_create(&t[i], 0, work, {arg_expr});
    }}
{pre}{joins}{unlock}    printf("a=%d b=%d c=%d Aa=%d Ab=%d Ac=%d\n", a, b, c, atomic_load(&Aa),
           atomic_load(&Ab), atomic_load(&Ac));
    return 0;
}}
"#
    );
    JoinProgram { source, recognised }
}
