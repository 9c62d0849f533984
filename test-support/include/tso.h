/*
 * tso.h - write C/C++ tests for `cargo tso test`.
 *
 *   #include <tso.h>
 *
 *   TSO_TEST(fifo_order) { ... }                          must never fail
 *   TSO_TEST_SHOULD_FAIL(racy) { ... }                    some failure must be reachable
 *   TSO_TEST_SHOULD_FAIL_WITH(racy2, assertion) { ... }   that kind of failure
 *   TSO_TEST_SHOULD_FAIL_UNDER_TSO(sb) { ... }            fails under x86-TSO and
 *                                                         passes under SC
 *   TSO_TEST_SHOULD_FAIL_UNDER_TSO_WITH(sb2, assertion) { ... }   the same, that kind
 *   TSO_TEST_SHOULD_FAIL_UNDER_C11(mp) { ... }            fails under C11 and
 *                                                         passes under x86-TSO
 *   TSO_TEST_SHOULD_FAIL_UNDER_C11_WITH(mp2, assertion) { ... }   the same, that kind
 *   TSO_TEST_IGNORE(slow) { ... }                         listed but not run by default
 *   TSO_TEST_ROBUST(no_tso_reasoning) { ... }             must never fail, and have no
 *                                                         behaviour under x86-TSO that
 *                                                         sequential consistency lacks
 *
 * Kinds: assertion abort deadlock out_of_bounds use_after_free double_free
 * invalid_free null_dereference division_by_zero pthread_misuse stack_overflow
 * non_terminating exit_status uninitialized data_race (a race fails a test only
 * under `--races deny`). Another name is a compile error.
 *
 * Each macro starts a function `void f(void)` with C linkage whose name carries the
 * test's name and expectation (see test-support's parse_test_symbol):
 *   __tso_test__<name>
 *   __tso_test_should_fail__<kind>__<name>      (kind `any` for TSO_TEST_SHOULD_FAIL)
 *   __tso_test_should_fail_under_tso__<kind>__<name>
 *   __tso_test_should_fail_under_c11__<kind>__<name>
 *   __tso_test_ignore__<name>
 *   __tso_test_robust__<name>
 * The checker runs each such function as the whole program, exploring every
 * interleaving of the threads it starts and every x86-TSO store-buffer behaviour.
 *
 * Valid C11 and C++17 for clang and gcc, so it may also be included by code the
 * ordinary build compiles (the tests themselves are compiled only by the tool).
 */
#ifndef TSO_H
#define TSO_H

#include <assert.h>

#ifdef __cplusplus
#define TSO_EXTERN_C_ extern "C"
#define TSO_STATIC_ASSERT_(cond, msg) static_assert(cond, msg)
#else
#define TSO_EXTERN_C_
#define TSO_STATIC_ASSERT_(cond, msg) _Static_assert(cond, msg)
#endif

/* A nondeterministic value in 0..n-1; the checker explores every one. Provided by
 * the checker, not by any library. */
TSO_EXTERN_C_ int tso_choose(int n);

/* Checks a condition in a test; a reachable false condition fails the test with
 * kind `assertion`. (The tool compiles tests with NDEBUG undefined.) */
#define TSO_ASSERT(cond) assert(cond)

/* Exists only so that TSO_TEST_SHOULD_FAIL_WITH can reject unknown kinds. */
enum tso_failure_kind_ {
    tso_failure_kind__any,
    tso_failure_kind__assertion,
    tso_failure_kind__abort,
    tso_failure_kind__deadlock,
    tso_failure_kind__out_of_bounds,
    tso_failure_kind__use_after_free,
    tso_failure_kind__double_free,
    tso_failure_kind__invalid_free,
    tso_failure_kind__null_dereference,
    tso_failure_kind__division_by_zero,
    tso_failure_kind__pthread_misuse,
    tso_failure_kind__stack_overflow,
    tso_failure_kind__non_terminating,
    tso_failure_kind__exit_status,
    tso_failure_kind__uninitialized,
    tso_failure_kind__data_race
};

/* Declares then starts defining a test function; `used` keeps it in the module and
 * `noinline` keeps it a function of its own, so the checker finds it by name. */
#define TSO_DEFINE_TEST_(symbol)                                                   \
    TSO_EXTERN_C_ void symbol(void);                                               \
    TSO_EXTERN_C_ __attribute__((used, noinline)) void symbol(void)

#define TSO_TEST(name) TSO_DEFINE_TEST_(__tso_test__##name)

#define TSO_TEST_IGNORE(name) TSO_DEFINE_TEST_(__tso_test_ignore__##name)

#define TSO_TEST_ROBUST(name) TSO_DEFINE_TEST_(__tso_test_robust__##name)

#define TSO_TEST_SHOULD_FAIL(name) TSO_TEST_SHOULD_FAIL_WITH(name, any)

#define TSO_TEST_SHOULD_FAIL_WITH(name, kind)                                      \
    TSO_STATIC_ASSERT_(tso_failure_kind__##kind >= 0,                              \
                       "TSO_TEST_SHOULD_FAIL_WITH: unknown failure kind " #kind);  \
    TSO_DEFINE_TEST_(__tso_test_should_fail__##kind##__##name)

/* A bug that needs store buffering: under x86-TSO the test must fail (with `kind`),
 * and the same test must pass under sequential consistency; under
 * `--memory-model sc` it must pass. A failure that also happens under SC fails the
 * test: it is not the TSO-only bug the test claims to document. */
#define TSO_TEST_SHOULD_FAIL_UNDER_TSO(name) TSO_TEST_SHOULD_FAIL_UNDER_TSO_WITH(name, any)

#define TSO_TEST_SHOULD_FAIL_UNDER_TSO_WITH(name, kind)                            \
    TSO_STATIC_ASSERT_(tso_failure_kind__##kind >= 0,                              \
                       "TSO_TEST_SHOULD_FAIL_UNDER_TSO_WITH: unknown failure kind " \
                       #kind);                                                     \
    TSO_DEFINE_TEST_(__tso_test_should_fail_under_tso__##kind##__##name)

/* A bug that needs what C11 allows beyond x86 (ARM, POWER, the compiler): under
 * `--memory-model c11` the test must fail (with `kind`), and the same test must pass
 * under x86-TSO; under `--memory-model tso` or `sc` it must pass. A failure that also
 * happens under x86-TSO fails the test. Declare the models it runs under in build.rs
 * (`Tests::memory_models`). */
#define TSO_TEST_SHOULD_FAIL_UNDER_C11(name) TSO_TEST_SHOULD_FAIL_UNDER_C11_WITH(name, any)

#define TSO_TEST_SHOULD_FAIL_UNDER_C11_WITH(name, kind)                            \
    TSO_STATIC_ASSERT_(tso_failure_kind__##kind >= 0,                              \
                       "TSO_TEST_SHOULD_FAIL_UNDER_C11_WITH: unknown failure kind " \
                       #kind);                                                     \
    TSO_DEFINE_TEST_(__tso_test_should_fail_under_c11__##kind##__##name)

#endif /* TSO_H */
