//! States rebuilt from the store are the states that were stored: for every state a
//! search reaches in corpus and benchmark programs (under SC), decoding its stored form
//! and serialising it again gives the same bytes, and every transition leads from the
//! rebuilt state where it leads from the original (`explore::roundtrip::DecodeCheck`).

mod engine_support;

use engine_support::*;
use std::path::Path;
use std::sync::Arc;
use tso_engine::explore::roundtrip::DecodeCheck;
use tso_engine::Verdict;

/// Programs whose state spaces cover threads, mutexes, condition variables, keys,
/// thread-locals, setjmp, semaphores, cancellation, callbacks from natives, thread
/// results with undefined bits, varargs, heap and exits.
const PROGRAMS: &[&str] = &[
    "tests/programs/threads/mutex_counter.c",
    "tests/programs/threads/condvar_prodcons.c",
    "tests/programs/threads/keys.c",
    "tests/programs/threads/thread_local.c",
    "tests/programs/threads/setjmp_per_thread.c",
    "tests/programs/threads/once.c",
    "tests/programs/threads/barrier.c",
    "tests/programs/threads/rwlock.c",
    "tests/programs/threads/tso_choose_threads.c",
    "tests/programs/threads/verifier_atomic.c",
    "tests/programs/threads/one_bad_interleaving.c",
    "tests/programs/threads/once_routine_calls_library.c",
    "tests/programs/threads/semaphore_wait_variants.c",
    "tests/programs/cancel/cleanup_handler_calls_library.c",
    "tests/programs/libc/qsort_bsearch.c",
    "tests/programs/uninit/thread_result_undefined.c",
    "tso-engine/tests/engine_support/programs/varargs_structs.c",
    "bench/programs/mutex3.c",
    "bench/programs/treiber4.c",
];

#[test]
fn rebuilt_states_serialise_and_step_like_the_originals() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut total = 0;
    for file in PROGRAMS {
        let src = std::fs::read_to_string(root.join(file)).expect("read program");
        let check = Arc::new(DecodeCheck::new(false));
        let mut opts = options();
        opts.observer = Some(check.clone());
        opts.limits.max_states = Some(3000);
        let r = check_with(&src, "-O1", &[], &opts);
        if let Some(f) = &r.failure {
            assert!(
                !f.message.starts_with("state decoding"),
                "{file}: {}",
                f.message
            );
        }
        assert!(
            r.verdict != Verdict::Error,
            "{file}: could not run: {:?}",
            r.failure
        );
        // Every program has at least its initial state and one successor.
        assert!(
            check.checked() >= 2,
            "{file}: only {} states checked",
            check.checked()
        );
        assert!(check.successors() >= check.checked(), "{file}");
        total += check.checked();
    }
    assert!(total > 5000, "only {total} states checked");
}
