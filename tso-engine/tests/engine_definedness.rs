//! Definedness (`uninitialized`): each use that must be defined fails at its exact
//! line (`/*HERE*/`) at -O0, -O1 and -O2, the message names where the memory came
//! from, states that differ only in definedness are not merged, and
//! `MachineOptions::definedness = false` switches it all off.

mod engine_support;

use engine_support::{
    assert_failure, assert_pass, check_src, check_with, line_of, options, ALL_OPTS,
};
use tso_engine::ErrorKind;

const PRELUDE: &str =
    "#include <stdlib.h>\n#include <stdio.h>\n#include <string.h>\n#include <tso.h>\n";

fn expect_uninitialized_at(body: &str) -> Vec<String> {
    let src = format!("{PRELUDE}{body}");
    let line = line_of(&src, "/*HERE*/");
    ALL_OPTS
        .iter()
        .map(|opt| {
            let r = check_src(&src, opt);
            assert_failure(&r, ErrorKind::Uninitialized, Some(line), opt);
            r.failure.expect("a failure").message
        })
        .collect()
}

fn expect_pass(body: &str) {
    let src = format!("{PRELUDE}{body}");
    for opt in ALL_OPTS {
        assert_pass(&check_src(&src, opt), opt);
    }
}

#[test]
fn branch_on_an_uninitialised_local_names_the_variable() {
    let messages = expect_uninitialized_at(
        "int main(void) {\n int x;\n volatile int *p = &x;\n if (*p > 0) /*HERE*/\n  puts(\"positive\");\n return 0;\n}\n",
    );
    assert!(
        messages[0].contains("branch condition") && messages[0].contains("`main::x`"),
        "{}",
        messages[0]
    );
}

#[test]
fn branch_on_malloc_memory_names_the_allocation() {
    let src = "int main(void) {\n volatile int *p = malloc(sizeof *p); /*ALLOC*/\n if (*p == 1) /*HERE*/\n  puts(\"one\");\n return 0;\n}\n";
    let alloc = line_of(&format!("{PRELUDE}{src}"), "/*ALLOC*/");
    for m in expect_uninitialized_at(src) {
        assert!(m.contains(&format!("allocated at prog.c:{alloc}")), "{m}");
    }
}

/// The message names the memory that was never written, not a copy of it: undefined
/// bytes stored or copied into another object keep where they came from
/// (`Object::undef_from`). At -O0, where the copies are memory (higher levels keep
/// such a value in a register, whose origin was always kept).
fn assert_blames_at_o0(body: &str, blamed: &str, copy: &str) {
    let src = format!("{PRELUDE}{body}");
    let r = check_src(&src, "-O0");
    let line = line_of(&src, "/*HERE*/");
    assert_failure(&r, ErrorKind::Uninitialized, Some(line), "-O0");
    let m = r.failure.expect("a failure").message;
    assert!(m.contains(blamed), "{m}");
    assert!(!m.contains(copy), "{m}");
}

#[test]
fn a_value_copied_through_a_local_names_the_memory_never_written() {
    assert_blames_at_o0(
        "struct queue { int buf_[4]; int head; };\nint main(void) {\n struct queue q;\n q.head = 1;\n int got = q.buf_[q.head];\n if (got > 3) /*HERE*/\n  puts(\"big\");\n return 0;\n}\n",
        "`main::q`",
        "`main::got`",
    );
}

#[test]
fn a_struct_copied_by_memcpy_names_the_memory_never_written() {
    assert_blames_at_o0(
        "struct queue { int buf_[4]; int head; };\nint main(void) {\n struct queue q, copy;\n q.head = 1;\n memcpy(&copy, &q, sizeof q);\n if (copy.buf_[2] > 3) /*HERE*/\n  puts(\"big\");\n return 0;\n}\n",
        "`main::q`",
        "`main::copy`",
    );
}

#[test]
fn a_heap_value_copied_through_a_local_names_its_allocation() {
    let src = "int main(void) {\n int *buf = malloc(4 * sizeof *buf); /*ALLOC*/\n buf[0] = 0;\n int got = buf[2];\n if (got > 3) /*HERE*/\n  puts(\"big\");\n free(buf);\n return 0;\n}\n";
    let alloc = line_of(&format!("{PRELUDE}{src}"), "/*ALLOC*/");
    assert_blames_at_o0(src, &format!("allocated at prog.c:{alloc}"), "`main::got`");
}

#[test]
fn switch_on_undefined_value() {
    expect_uninitialized_at(
        "int main(void) {\n volatile int *p = malloc(sizeof *p);\n switch (*p) { /*HERE*/\n case 1: puts(\"a\"); break;\n case 2: puts(\"b\"); break;\n case 7: puts(\"c\"); break;\n }\n return 0;\n}\n",
    );
}

#[test]
fn store_through_an_undefined_pointer() {
    expect_uninitialized_at(
        "int main(void) {\n int *volatile *slot = malloc(sizeof *slot);\n int *p = *slot;\n *p = 1; /*HERE*/\n return 0;\n}\n",
    );
}

#[test]
fn undefined_argument_to_a_modelled_function() {
    let messages = expect_uninitialized_at(
        "int main(void) {\n volatile int *p = malloc(sizeof *p);\n printf(\"%d\\n\", *p); /*HERE*/\n return 0;\n}\n",
    );
    assert!(messages[0].contains("`printf`"), "{}", messages[0]);
}

#[test]
fn strcmp_of_unwritten_bytes() {
    expect_uninitialized_at(
        "int main(void) {\n char *a = malloc(4);\n volatile int r = strcmp(a, \"x\"); /*HERE*/\n (void)r;\n return 0;\n}\n",
    );
}

/// The thread library hands a value's undefined bits on: to the start routine's
/// parameter, and from the thread's result (returned or passed to `pthread_exit`) to
/// the joiner. Using them there is the error.
#[test]
fn undefined_bits_pass_through_thread_creation_and_join() {
    let threads = "#include <pthread.h>\n";
    expect_uninitialized_at(&format!(
        "{threads}void *f(void *a) {{\n if ((long)a > 0) /*HERE*/\n  puts(\"pos\");\n return 0;\n}}\nint main(void) {{\n long *v = malloc(sizeof *v);\n volatile long *p = v;\n pthread_t t;\n pthread_create(&t, 0, f, (void *)*p);\n pthread_join(t, 0);\n return 0;\n}}\n"
    ));
    for end in ["return (void *)*p;", "pthread_exit((void *)*p);"] {
        expect_uninitialized_at(&format!(
            "{threads}void *f(void *a) {{\n long *v = malloc(sizeof *v);\n volatile long *p = v;\n {end}\n}}\nint main(void) {{\n pthread_t t;\n void *r;\n pthread_create(&t, 0, f, 0);\n pthread_join(t, &r);\n if ((long)r > 0) /*HERE*/\n  puts(\"pos\");\n return 0;\n}}\n"
        ));
    }
    // C11 threads hand an `int` result on the same way.
    expect_uninitialized_at(
        "#include <threads.h>\nint f(void *a) {\n int *v = malloc(sizeof *v);\n return *(volatile int *)v;\n}\nint main(void) {\n thrd_t t;\n int r;\n thrd_create(&t, f, 0);\n thrd_join(t, &r);\n if (r > 0) /*HERE*/\n  puts(\"pos\");\n return 0;\n}\n",
    );
    // A result nobody reads (a start routine that falls off its end) is no error, and
    // defined values stay defined.
    expect_pass(&format!(
        "{threads}int x;\nvoid *g(void *a) {{\n x = 1;\n}}\nvoid *f(void *a) {{\n if ((long)a > 0)\n  puts(\"pos\");\n return a;\n}}\nint main(void) {{\n pthread_t t;\n void *r;\n pthread_create(&t, 0, g, 0);\n pthread_join(t, 0);\n pthread_create(&t, 0, f, (void *)1);\n pthread_join(t, &r);\n if ((long)r > 0)\n  puts(\"pos\");\n return 0;\n}}\n"
    ));
}

/// A key's value is inspected by the library (destructors run for non-NULL values), so
/// an undefined one is refused where it is set.
#[test]
fn undefined_thread_specific_value() {
    let messages = expect_uninitialized_at(
        "#include <pthread.h>\npthread_key_t k;\nint main(void) {\n long *v = malloc(sizeof *v);\n volatile long *p = v;\n pthread_key_create(&k, 0);\n pthread_setspecific(k, (void *)*p); /*HERE*/\n return 0;\n}\n",
    );
    assert!(
        messages[0].contains("`pthread_setspecific`"),
        "{}",
        messages[0]
    );
}

#[test]
fn copies_and_masked_partial_words_pass() {
    expect_pass(
        "struct s { char c; long l; };\nint main(void) {\n struct s *a = malloc(sizeof *a);\n a->c = 1; a->l = 2;\n struct s b = *a;\n struct s *c = malloc(sizeof *c);\n memcpy(c, &b, sizeof b);\n memmove(c, a, sizeof *a);\n volatile unsigned *w = malloc(4);\n ((volatile unsigned char *)w)[0] = 9;\n if ((*w & 0xff) == 9 && c->c == 1 && c->l == 2)\n  puts(\"ok\");\n return 0;\n}\n",
    );
}

#[test]
fn states_that_differ_only_in_definedness_are_not_merged() {
    // Choice 0 writes the 0 that malloc's bytes hold anyway; choice 1 leaves them
    // undefined. After the second choice both paths reach a state that differs only
    // in definedness: merging them would hide the error on the path explored second.
    expect_uninitialized_at(
        "int main(void) {\n volatile int *p = malloc(sizeof *p);\n if (!tso_choose(2))\n  *p = 0;\n tso_choose(2);\n if (*p == 0) /*HERE*/\n  puts(\"zero\");\n return 0;\n}\n",
    );
}

#[test]
fn switched_off_nothing_is_undefined() {
    let src = format!(
        "{PRELUDE}int main(void) {{\n int x;\n volatile int *p = &x;\n volatile int *h = malloc(sizeof *h);\n if (*p > 0 || *h > 0)\n  puts(\"positive\");\n return 0;\n}}\n"
    );
    let mut opts = options();
    opts.machine.definedness = false;
    for opt in ALL_OPTS {
        assert_pass(&check_with(&src, opt, &[], &opts), opt);
        assert_failure(&check_src(&src, opt), ErrorKind::Uninitialized, None, opt);
    }
}

/// The states of `body` at -O0, with definedness on or off.
fn states_at_o0(body: &str, definedness: bool) -> u64 {
    let src = format!("{PRELUDE}{body}");
    let mut opts = options();
    opts.machine.definedness = definedness;
    let r = check_with(&src, "-O0", &[], &opts);
    assert_pass(&r, "-O0");
    r.stats.states
}

#[test]
fn a_slot_no_path_reads_again_does_not_split_states() {
    // One path writes `t` (and reads it back), the other never does: at the second
    // choice no path can read `t` before writing it, so its definedness is not state.
    let body = "int main(void) {\n int t;\n if (tso_choose(2)) {\n  t = 0;\n  if (t)\n   puts(\"x\");\n }\n tso_choose(2);\n t = 1;\n return t - 1;\n}\n";
    assert_eq!(states_at_o0(body, true), states_at_o0(body, false));
}

#[test]
fn stale_values_of_dead_slots_do_not_split_states() {
    // Two paths leave different values in `t`, which is written again before any read.
    let program = |second: u32| {
        format!("int main(void) {{\n int t;\n if (tso_choose(2)) t = 5; else t = {second};\n if (t == 0)\n  puts(\"x\");\n tso_choose(2);\n t = 1;\n return t - 1;\n}}\n")
    };
    assert_eq!(
        states_at_o0(&program(7), true),
        states_at_o0(&program(5), true)
    );
}

#[test]
fn a_frame_returned_into_has_its_dead_slots_reset_again() {
    // `main` waits below `pick` at pick's choice, where its slot `t` is reset and the
    // frame counts as settled. After the return, `main` writes `t` with a value that
    // depends on the choice and stops again where `t` is dead: the return must unsettle
    // the frame, or the two values split the state.
    let program = |second: u32| {
        format!("static int pick(void) {{\n return tso_choose(2);\n}}\nint main(void) {{\n int t = 0;\n if (pick()) t = 5; else t = {second};\n if (t == 0)\n  puts(\"x\");\n tso_choose(2);\n t = 1;\n return t - 1;\n}}\n")
    };
    assert_eq!(
        states_at_o0(&program(7), true),
        states_at_o0(&program(5), true)
    );
}
