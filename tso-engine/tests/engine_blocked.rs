//! The searches skip running a thread that surely blocks at once
//! (`Machine::blocks_at_once`: a join of a running thread, a lock of a held mutex,
//! another thread's atomic section). `BlockedCheck` runs every such thread anyway, in every state, and requires
//! it to block; the programs reach each condition the rule depends on (a cancellation
//! acting at the join, a detached target, a self-join, a result slot, one with
//! undefined bits, a finished target, an atomic section, one left open by its owner;
//! a mutex held by another thread, relocked by its holder, too small to be one).

mod engine_support;

use engine_support::{check_with, options, ALL_OPTS};
use std::path::Path;
use std::sync::Arc;
use tso_engine::{BlockedCheck, ErrorKind, Verdict};

const PRELUDE: &str = "#include <pthread.h>\n#include <stdlib.h>\n#include <string.h>\n#include <assert.h>\nvoid __VERIFIER_atomic_begin(void);\n";

/// `sleeper` holds on `m`, which main holds: it stays running (blocked) while main
/// joins. Each body is main's, after that setup.
fn program(main_body: &str) -> String {
    format!(
        "{PRELUDE}pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_t sleeper;
void *sleeper_fn(void *a) {{ pthread_mutex_lock(&m); pthread_mutex_unlock(&m); return a; }}
void *joiner(void *a) {{ pthread_join(sleeper, NULL); return a; }}
__attribute__((noinline)) void __VERIFIER_atomic_bump(int *p) {{ *p += 1; }}
int shared;
void *bumper(void *a) {{ __VERIFIER_atomic_bump(&shared); return a; }}
void *ender(void *a) {{ __VERIFIER_atomic_begin(); shared = 1; return a; }}
pthread_mutex_t rec;
char small[32];
void *relocker(void *a) {{
    pthread_mutex_lock(&rec); pthread_mutex_lock(&rec);
    pthread_mutex_unlock(&rec); pthread_mutex_unlock(&rec); return a; }}
void *small_locker(void *a) {{ pthread_mutex_lock((pthread_mutex_t *)small); return a; }}
int main(void) {{
    pthread_mutex_lock(&m);
    pthread_create(&sleeper, NULL, sleeper_fn, NULL);
    {main_body}
    return 0;
}}"
    )
}

/// Main's bodies and what the check must conclude (the verdict's kind, or pass).
fn cases() -> Vec<(&'static str, Option<ErrorKind>)> {
    vec![
        // A cancellation acts at the join instead of blocking it.
        (
            "pthread_t j; pthread_create(&j, NULL, joiner, NULL); pthread_cancel(j);
    pthread_join(j, NULL); pthread_mutex_unlock(&m); pthread_join(sleeper, NULL);",
            None,
        ),
        // A detached target: an error, not a wait.
        (
            "pthread_detach(sleeper); pthread_join(sleeper, NULL); pthread_mutex_unlock(&m);",
            Some(ErrorKind::PthreadMisuse),
        ),
        // A self-join: an error, not a wait.
        (
            "pthread_join(pthread_self(), NULL); pthread_mutex_unlock(&m);",
            Some(ErrorKind::Deadlock),
        ),
        // A result slot that is not memory: checked before the join waits.
        (
            "pthread_mutex_unlock(&m); pthread_join(sleeper, (void **)16);",
            Some(ErrorKind::NullDereference),
        ),
        // A finished target is joined at once; a running one blocks the joiner.
        (
            "pthread_t j; pthread_create(&j, NULL, joiner, NULL); pthread_mutex_unlock(&m);
    pthread_join(j, NULL);",
            None,
        ),
        // A result slot with undefined bits: refused before the call.
        (
            "pthread_mutex_unlock(&m); void **out; pthread_join(sleeper, out);",
            Some(ErrorKind::Uninitialized),
        ),
        // A thread that ends inside its atomic section releases it (`finish_thread`).
        (
            "pthread_mutex_unlock(&m); pthread_t e; pthread_create(&e, NULL, ender, NULL);
    pthread_join(e, NULL); pthread_join(sleeper, NULL);",
            None,
        ),
        // A mutex held by another thread blocks; a recursive one its holder takes again.
        (
            "pthread_mutexattr_t at; pthread_mutexattr_init(&at);
    pthread_mutexattr_settype(&at, PTHREAD_MUTEX_RECURSIVE); pthread_mutex_init(&rec, &at);
    pthread_t r[2]; for (int i = 0; i < 2; i++) pthread_create(&r[i], NULL, relocker, NULL);
    pthread_mutex_unlock(&m); pthread_join(sleeper, NULL);
    for (int i = 0; i < 2; i++) pthread_join(r[i], NULL);",
            None,
        ),
        // A \"mutex\" smaller than one, whose owner word is set: out of bounds, not a wait.
        (
            "pthread_mutex_unlock(&m); memset(small, 1, sizeof small); pthread_t s;
    pthread_create(&s, NULL, small_locker, NULL); pthread_join(s, NULL);",
            Some(ErrorKind::OutOfBounds),
        ),
        // Another thread's atomic section blocks everyone else.
        (
            "pthread_mutex_unlock(&m); pthread_t b[2];
    for (int i = 0; i < 2; i++) pthread_create(&b[i], NULL, bumper, NULL);
    __VERIFIER_atomic_bump(&shared);
    for (int i = 0; i < 2; i++) pthread_join(b[i], NULL);
    pthread_join(sleeper, NULL); assert(shared == 3);",
            None,
        ),
    ]
}

#[test]
fn threads_said_to_block_at_once_do_block() {
    let mut applied = 0;
    for (body, want) in cases() {
        let src = program(body);
        for opt in ALL_OPTS {
            let check = Arc::new(BlockedCheck::default());
            let mut opts = options();
            opts.observer = Some(check.clone());
            let r = check_with(&src, opt, &[], &opts);
            let kind = r.failure.as_ref().map(|f| f.kind);
            assert_eq!(kind, want, "{opt}: {body}: {:?}", r.failure);
            assert!(
                r.verdict != Verdict::Error,
                "{opt}: {body}: could not run: {:?}",
                r.failure
            );
            applied += check.applied();
        }
    }
    assert!(applied > 50, "the rule applied only {applied} times");
}

/// The rule over the thread and cancellation programs of the suite, under SC.
#[test]
fn the_blocked_shortcut_holds_on_the_thread_programs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/programs");
    let mut applied = 0;
    for dir in ["threads", "cancel", "mutex", "deadlock"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("read programs")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "c"))
            .collect();
        files.sort();
        for file in files {
            let src = std::fs::read_to_string(&file).expect("read program");
            let check = Arc::new(BlockedCheck::default());
            let mut opts = options();
            opts.observer = Some(check.clone());
            opts.limits.max_states = Some(20_000);
            let r = check_with(&src, "-O1", &[], &opts);
            if let Some(f) = &r.failure {
                assert!(
                    !f.message.starts_with("blocked shortcut"),
                    "{}: {}",
                    file.display(),
                    f.message
                );
            }
            applied += check.applied();
        }
    }
    assert!(applied > 100, "the rule applied only {applied} times");
}
