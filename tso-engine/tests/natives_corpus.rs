//! The corpus programs that exercise the modelled libraries reach the verdicts their
//! `// expect-sc:` headers state, at -O0 and -O2 (or the header's clang-args).

mod natives_support;

use natives_support::{assert_verdict, run_file, OPT_LEVELS};
use std::path::Path;
use tso_engine::ErrorKind;

fn corpus(name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/programs")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("read corpus program");
    let header = |tag: &str| {
        text.lines()
            .take(6)
            .find_map(|l| l.strip_prefix(tag).map(|s| s.trim().to_string()))
    };
    let expect = header("// expect-sc:").expect("expect-sc header");
    let kind = expect
        .strip_prefix("fail")
        .map(|k| ErrorKind::parse(k.trim()).expect("known error kind"));
    let args = header("// clang-args:");
    let levels: Vec<&str> = match &args {
        Some(a) => vec![a.as_str()],
        None => OPT_LEVELS.to_vec(),
    };
    for opt in levels {
        let r = run_file(&path, opt, &[]);
        assert_verdict(&r, kind, &format!("{name} {opt}"));
    }
}

macro_rules! corpus_tests {
    ($($test:ident => $file:expr,)*) => { $( #[test] fn $test() { corpus($file); } )* };
}

corpus_tests! {
    condvar_prodcons => "threads/condvar_prodcons.c",
    condvar_lost_wakeup => "threads/condvar_lost_wakeup.c",
    barrier => "threads/barrier.c",
    rwlock => "threads/rwlock.c",
    rwlock_racy_reader => "threads/rwlock_racy_reader.c",
    once => "threads/once.c",
    thread_local => "threads/thread_local.c",
    cpp_std_thread => "threads/cpp_std_thread.cpp",
    deadlock_cond_no_signal => "errors/deadlock_cond_no_signal.c",
    unlock_not_owned => "errors/unlock_not_owned.c",
    unlock_other_thread => "errors/unlock_other_thread.c",
    destroy_locked_mutex => "errors/destroy_locked_mutex.c",
    join_twice => "errors/join_twice.c",
    unsupported_fopen => "errors/unsupported_fopen.c",
    deadlock_self_relock => "errors/deadlock_self_relock.c",
}

/// keys.c returns from its start routines and expects the key destructors to have run.
#[test]
fn keys() {
    corpus("threads/keys.c");
}
