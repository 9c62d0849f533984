//! Among equally short counterexamples the search reports the one whose flush choices
//! leave the fewest stores delayed (issue 9: the least relaxed run explains a TSO bug
//! best). A native stands in for the TSO runtime: `weighted(a, b)` is a choice between
//! 0 and 1 whose options leave `a` and `b` stores delayed (`NativeCx::choose_flush`).

mod engine_support;

use engine_support::*;
use tso_engine::{arg, check, ErrorKind, NativeResult, Natives, Val, Verdict, Visibility};

fn natives() -> Natives {
    let mut n = Natives::standard();
    n.add_described(
        "weighted",
        Visibility::Choice,
        |_, _, _| "weighted choice".to_string(),
        |cx, a| {
            let w = [arg(a, 0)? as u32, arg(a, 1)? as u32];
            Ok(NativeResult::Return(Val::Int(cx.choose_flush(&w) as u128)))
        },
    );
    n
}

/// The output of the reported counterexample, for 1 and 2 workers.
fn reported(src: &str) -> Vec<String> {
    let bc = compile(src, "-O1", &[]);
    let prog = tso_engine::load_file(&bc).expect("load bitcode");
    [1, 2]
        .into_iter()
        .map(|jobs| {
            let mut opts = options();
            opts.jobs = jobs;
            let r = check(&prog, &natives(), &opts);
            assert_eq!(r.verdict, Verdict::Fail, "{:?}", r.failure);
            assert_eq!(
                r.failure.as_ref().map(|f| f.kind),
                Some(ErrorKind::Assertion)
            );
            r.output
        })
        .collect()
}

const PROLOGUE: &str = "#include <assert.h>\n#include <stdio.h>\nint weighted(int a, int b);\n";

#[test]
fn the_error_with_fewest_delayed_stores_is_reported() {
    // Both options fail at once; the second delays fewer stores.
    let src = format!(
        "{PROLOGUE}int main(void) {{ int x = weighted(3, 1); printf(\"%d\", x); assert(0); }}\n"
    );
    assert_eq!(reported(&src), ["1", "1"]);
    // The same with the lighter option first: the order does not decide it.
    let src = format!(
        "{PROLOGUE}int main(void) {{ int x = weighted(0, 2); printf(\"%d\", x); assert(0); }}\n"
    );
    assert_eq!(reported(&src), ["0", "0"]);
}

#[test]
fn a_merged_state_keeps_its_lightest_parent() {
    // Both first choices reach one state (x is dead and the output is not state); the
    // path through it goes through the lighter one, whatever the second choice adds.
    let src = format!(
        "{PROLOGUE}int main(void) {{ int x = weighted(5, 1); printf(\"%d\", x); \
         int y = weighted(0, 2); printf(\"%d\", y); assert(0); }}\n"
    );
    assert_eq!(reported(&src), ["10", "10"]);
}
