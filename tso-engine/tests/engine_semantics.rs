//! Interpreter semantics: each program runs under the engine at -O0, -O1 and -O2 and
//! must print exactly what the same program prints when compiled natively.

mod engine_support;

use engine_support::{assert_same_as_native, assert_same_as_native_at};

#[test]
fn integer_ops_at_every_width_match_native() {
    let out = assert_same_as_native(include_str!("engine_support/programs/int_ops.c"));
    assert_eq!(out.lines().count(), 14);
}

#[test]
fn bit_intrinsics_match_native() {
    let out = assert_same_as_native(include_str!("engine_support/programs/bit_intrinsics.c"));
    assert_eq!(out.lines().count(), 15);
}

#[test]
fn overflow_saturating_minmax_abs_match_native() {
    let out = assert_same_as_native(include_str!(
        "engine_support/programs/overflow_intrinsics.c"
    ));
    assert!(out.contains("abs 5 -2147483648 100"), "{out}");
}

#[test]
fn vector_intrinsics_work_lane_by_lane() {
    let src = include_str!("engine_support/programs/vector_intrinsics.c");
    for opt in ["-O0", "-O2"] {
        let out = assert_same_as_native_at(src, opt, &[]);
        assert!(out.contains("lane 3"), "{out}");
    }
}

#[test]
fn vectorisable_loops_unoptimised_match_native() {
    let src = include_str!("engine_support/programs/vectorised_loops.c");
    for opt in ["-O0", "-O1"] {
        assert_same_as_native_at(src, opt, &[]);
    }
}

#[test]
fn vectorised_loops_at_o2_and_o3_match_native() {
    let src = include_str!("engine_support/programs/vectorised_loops.c");
    for opt in ["-O2", "-O3"] {
        assert_same_as_native_at(src, opt, &[]);
    }
}

#[test]
fn floats_doubles_conversions_and_printf_match_native() {
    let out = assert_same_as_native(include_str!("engine_support/programs/floats.c"));
    assert!(out.contains("nan 0 0 0 1 0 0 1"), "{out}");
}

#[test]
fn structs_unions_bitfields_fnptrs_varargs_recursion_switch_match_native() {
    let out = assert_same_as_native(include_str!("engine_support/programs/aggregates.c"));
    assert!(out.contains("rec 1597 9 0 1"), "{out}");
}

#[test]
fn pointer_provenance_globals_ctors_and_tls_match_native() {
    let out = assert_same_as_native(include_str!("engine_support/programs/pointers.c"));
    assert!(out.starts_with("ctor 21 g_a 111\n"), "{out}");
}

#[test]
fn byval_struct_arguments_are_copies() {
    let out = assert_same_as_native(include_str!("engine_support/programs/byval.c"));
    assert!(out.contains("caller 8 100"), "{out}");
}

#[test]
fn structs_through_varargs_are_read_back() {
    let out = assert_same_as_native(include_str!("engine_support/programs/varargs_structs.c"));
    assert_eq!(out.lines().count(), 3);
}

#[test]
fn float_classification_matches_native() {
    let out = assert_same_as_native(include_str!("engine_support/programs/fpclass.c"));
    assert!(out.starts_with("isnan 1 0"), "{out}");
}

#[test]
fn atexit_handlers_run_last_first_when_main_returns_and_on_exit() {
    let returns = "#include <stdio.h>\n#include <stdlib.h>\nstatic void a(void) { puts(\"a\"); }\nstatic void b(void) { puts(\"b\"); }\nint main(void) { atexit(a); atexit(b); puts(\"main\"); return 0; }\n";
    assert_eq!(assert_same_as_native(returns), "main\nb\na\n");
    let exits = "#include <stdio.h>\n#include <stdlib.h>\nstatic void a(void) { puts(\"a\"); }\nstatic void f(void) { exit(0); }\nint main(void) { atexit(a); f(); puts(\"unreachable\"); return 0; }\n";
    assert_eq!(assert_same_as_native(exits), "a\n");
}
