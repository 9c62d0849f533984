//! Memory errors and other runtime errors: the exact kind, at the exact line (marked
//! `/*HERE*/` in each program), at -O0, -O1 and -O2.

mod engine_support;

use engine_support::{
    assert_failure, assert_pass, check_src, check_with, line_of, options, ALL_OPTS,
};
use tso_engine::{ErrorKind, Verdict};

const PRELUDE: &str =
    "#include <stdlib.h>\n#include <stdio.h>\n#include <string.h>\n#include <limits.h>\n";

/// Check `body` at every optimisation level and expect `kind` at the `/*HERE*/` line,
/// with `output` printed before the error.
fn expect_error_at(body: &str, kind: ErrorKind, output: &str) {
    let src = format!("{PRELUDE}{body}");
    let line = line_of(&src, "/*HERE*/");
    for opt in ALL_OPTS {
        let r = check_src(&src, opt);
        assert_failure(&r, kind, Some(line), opt);
        assert_eq!(r.output, output, "{opt}: output before the error");
        let cex = r
            .counterexample
            .as_ref()
            .expect("a failure has a counterexample");
        assert!(
            !cex.steps.is_empty() || output.is_empty(),
            "{opt}: trace is empty"
        );
    }
}

#[test]
fn heap_read_one_past_the_end() {
    expect_error_at("int main(void) { volatile int n = 4; int *p = malloc(n * sizeof(int)); for (int i = 0; i < n; i++) p[i] = i;
        printf(\"start\\n\");
        int x = p[n]; /*HERE*/
        printf(\"%d\\n\", x); free(p); return 0; }", ErrorKind::OutOfBounds, "start\n");
}

#[test]
fn heap_write_one_past_the_end() {
    expect_error_at(
        "int main(void) { volatile int n = 4; char *p = malloc(n);
        p[n] = 'x'; /*HERE*/
        printf(\"%c\\n\", p[0]); free(p); return 0; }",
        ErrorKind::OutOfBounds,
        "",
    );
}

#[test]
fn stack_array_read_and_write_out_of_bounds() {
    expect_error_at(
        "int main(void) { volatile int i = 5; int a[5] = {1, 2, 3, 4, 5};
        printf(\"%d\\n\", a[i - 1]);
        int x = a[i]; /*HERE*/
        return x; }",
        ErrorKind::OutOfBounds,
        "5\n",
    );
    expect_error_at(
        "int main(void) { volatile int i = 5; int a[5] = {1, 2, 3, 4, 5};
        a[i] = 1; /*HERE*/
        printf(\"%d\\n\", a[0]); return a[1]; }",
        ErrorKind::OutOfBounds,
        "",
    );
}

#[test]
fn global_array_overflow_read_and_write() {
    expect_error_at(
        "int before = 1; int table[4] = {1, 2, 3, 4}; int after = 2;
        int main(void) { volatile int i = 4;
        table[i] = 9; /*HERE*/
        return after; }",
        ErrorKind::OutOfBounds,
        "",
    );
    expect_error_at(
        "int before = 1; int table[4] = {1, 2, 3, 4}; int after = 2;
        int main(void) { volatile int i = 4;
        return table[i] + before; /*HERE*/ }",
        ErrorKind::OutOfBounds,
        "",
    );
}

#[test]
fn global_array_underflow_is_out_of_bounds() {
    // The first global of the module, indexed at -1.
    expect_error_at(
        "int table[4] = {1, 2, 3, 4};
        int main(void) { volatile int i = -1;
        return table[i]; /*HERE*/ }",
        ErrorKind::OutOfBounds,
        "",
    );
}

#[test]
fn heap_use_after_free() {
    expect_error_at(
        "struct s { int a, b; };
        int main(void) { struct s *p = malloc(sizeof *p); p->a = 1; p->b = 2; free(p);
        printf(\"freed\\n\");
        return p->b; /*HERE*/ }",
        ErrorKind::UseAfterFree,
        "freed\n",
    );
}

#[test]
fn write_after_free() {
    expect_error_at(
        "int main(void) { int *volatile p = malloc(sizeof *p); free(p);
        *p = 3; /*HERE*/
        return 0; }",
        ErrorKind::UseAfterFree,
        "",
    );
}

#[test]
fn returned_stack_slot_is_use_after_free() {
    expect_error_at("__attribute__((noinline)) int *escape(int v) { volatile int local = v; return (int *)&local; }
        int main(void) { int *p = escape(3);
        int x = *p; /*HERE*/
        return x; }", ErrorKind::UseAfterFree, "");
}

#[test]
fn double_free() {
    expect_error_at(
        "int main(void) { void *volatile p = malloc(8); free(p);
        free(p); /*HERE*/
        return 0; }",
        ErrorKind::DoubleFree,
        "",
    );
}

#[test]
fn invalid_frees() {
    expect_error_at(
        "int g;
        int main(void) { void *volatile p = &g;
        free(p); /*HERE*/
        return 0; }",
        ErrorKind::InvalidFree,
        "",
    );
    expect_error_at(
        "int main(void) { int local = 0; void *volatile p = &local;
        free(p); /*HERE*/
        return local; }",
        ErrorKind::InvalidFree,
        "",
    );
    expect_error_at(
        "int main(void) { char *volatile p = malloc(16);
        free(p + 4); /*HERE*/
        return 0; }",
        ErrorKind::InvalidFree,
        "",
    );
}

#[test]
fn null_dereferences() {
    expect_error_at(
        "int main(void) { int *volatile p = NULL;
        return *p; /*HERE*/ }",
        ErrorKind::NullDereference,
        "",
    );
    expect_error_at(
        "int main(void) { int *volatile p = NULL;
        *p = 1; /*HERE*/
        return 0; }",
        ErrorKind::NullDereference,
        "",
    );
    expect_error_at(
        "struct s { int a; int b[10]; };
        int main(void) { struct s *volatile p = NULL;
        return p->b[3]; /*HERE*/ }",
        ErrorKind::NullDereference,
        "",
    );
    expect_error_at(
        "int main(void) { int (*volatile f)(void) = NULL;
        return f(); /*HERE*/ }",
        ErrorKind::NullDereference,
        "",
    );
}

#[test]
fn division_by_zero_and_int_min_by_minus_one() {
    expect_error_at(
        "int main(void) { volatile int a = 7, b = 0;
        return a / b; /*HERE*/ }",
        ErrorKind::DivisionByZero,
        "",
    );
    expect_error_at(
        "int main(void) { volatile unsigned long a = 7, b = 0;
        return (int)(a % b); /*HERE*/ }",
        ErrorKind::DivisionByZero,
        "",
    );
    expect_error_at(
        "int main(void) { volatile int a = INT_MIN, b = -1;
        return a / b; /*HERE*/ }",
        ErrorKind::DivisionByZero,
        "",
    );
    expect_error_at(
        "int main(void) { volatile long a = LONG_MIN, b = -1;
        return (int)(a % b); /*HERE*/ }",
        ErrorKind::DivisionByZero,
        "",
    );
}

#[test]
fn deep_recursion_is_a_stack_overflow() {
    let src = format!("{PRELUDE}__attribute__((noinline)) int down(volatile int n) {{ volatile int pad[4] = {{n}}; return n == 0 ? pad[0] : down(n + 1) + 1; }}
        int main(void) {{ return down(1); }}");
    for opt in ALL_OPTS {
        let r = check_src(&src, opt);
        assert_failure(&r, ErrorKind::StackOverflow, Some(5), opt);
    }
}

#[test]
fn infinite_loop_is_non_terminating_quickly() {
    // "Quickly" in instructions: the repeated state is found when the loop closes
    // (Brent's cycle detection from the 1024th step, `interp/cycle.rs`), well before this
    // step budget, which would otherwise end the run as a step-limit failure instead.
    let mut opts = options();
    opts.machine.max_steps = 1 << 14;
    for opt in ALL_OPTS {
        let src = format!(
            "{PRELUDE}int main(void) {{ printf(\"go\\n\");
            while (1); /*HERE*/
            return 0; }}"
        );
        let r = check_with(&src, opt, &[], &opts);
        assert_failure(
            &r,
            ErrorKind::NonTerminating,
            Some(line_of(&src, "/*HERE*/")),
            opt,
        );
        assert_eq!(r.output, "go\n", "{opt}");
    }
}

/// A step limit is inconclusive and is paid for once: the search that hits it does not
/// run the long transition again to look for a shorter path to it (no counterexample
/// is shown for a limit), which made hitting the default limit cost minutes.
#[test]
fn a_step_limit_runs_the_long_transition_once() {
    let mut opts = options();
    opts.machine.max_steps = 1 << 20;
    let src = format!(
        "{PRELUDE}int main(void) {{ unsigned long i = 0; while (++i != 0); return (int)i; }}"
    );
    let r = check_with(&src, "-O0", &[], &opts);
    assert_eq!(
        r.verdict,
        Verdict::Inconclusive,
        "{:?}",
        r.inconclusive_reason
    );
    assert!(
        r.inconclusive_reason
            .as_deref()
            .is_some_and(|why| why.contains("--max-steps")),
        "{:?}",
        r.inconclusive_reason
    );
    let steps = opts.machine.max_steps;
    assert!(
        (steps..steps + steps / 2).contains(&r.stats.instructions),
        "{} instructions for a limit of {steps}",
        r.stats.instructions
    );
}

#[test]
fn long_finite_loop_passes() {
    let src = format!("{PRELUDE}int main(void) {{ volatile unsigned long s = 0; for (unsigned long i = 0; i < 3000000; i++) s += i ^ (i >> 3);
        printf(\"%lu\\n\", s); return 0; }}");
    let native = engine_support::run_native(&src, "-O0", &[]);
    for opt in ALL_OPTS {
        let r = check_src(&src, opt);
        assert_pass(&r, opt);
        assert_eq!(r.output, native, "{opt}");
    }
}

#[test]
fn no_main_is_a_tool_error() {
    let src = format!("{PRELUDE}void helper(void) {{ printf(\"helper\\n\"); }}");
    let r = check_with(&src, "-O0", &[], &options());
    assert_eq!(r.verdict, Verdict::Error);
    assert_eq!(
        r.failure.as_ref().map(|f| f.kind),
        Some(ErrorKind::Unsupported)
    );
    let mut opts = options();
    opts.entry = "helper".into();
    let r = check_with(&src, "-O0", &[], &opts);
    assert_pass(&r, "entry helper");
    assert_eq!(r.output, "helper\n");
}

#[test]
fn struct_self_assignment_through_pointers_is_not_an_error() {
    // `*a = *b` with a == b becomes llvm.memcpy(p, p, n), which LLVM allows (equal or
    // disjoint ranges).
    let src = format!("{PRELUDE}struct s {{ long v[6]; }};
        __attribute__((noinline)) void assign(struct s *a, const struct s *b) {{ *a = *b; }}
        int main(void) {{ struct s x = {{{{1, 2, 3, 4, 5, 6}}}}; assign(&x, &x); printf(\"%ld\\n\", x.v[5]); return 0; }}");
    for opt in ALL_OPTS {
        let r = check_src(&src, opt);
        assert_pass(&r, opt);
        assert_eq!(r.output, "6\n", "{opt}");
    }
}
