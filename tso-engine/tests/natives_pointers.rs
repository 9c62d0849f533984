//! Every modelled function checks the pointers it reads or writes through exactly like a
//! program load or store: each family is handed a NULL pointer, a freed block and a
//! block one byte too small, and must report null-dereference, use-after-free and
//! out-of-bounds (compiled at -O0 and -O2, checked under SC; the TSO side is covered by
//! tests/programs/errors/native_*).

mod natives_support;

use natives_support::{assert_verdict, run_source, OPT_LEVELS};
use tso_engine::ErrorKind;

const C_PRELUDE: &str = "#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n
static void *routine(void *a) { return a; }
static void once_routine(void) {}
static int by_value(const void *a, const void *b) { return *(const char *)a - *(const char *)b; }
static char src[64] = \"0123456789abcdef\";
void *volatile null_pointer;
void *volatile sink;
long volatile result;
";

const CPP_PRELUDE: &str = "#include <condition_variable>\n#include <mutex>\n#include <thread>\n#include <cstdlib>\n#include <cstring>\n
extern \"C\" int __cxa_guard_acquire(long long *);
extern \"C\" void __cxa_guard_release(long long *);
void *volatile null_pointer;
void *volatile sink;
";

/// Which bad pointer the call gets.
#[derive(Clone, Copy, Debug)]
enum Bad {
    Null,
    Freed,
    /// A heap block one byte smaller than the call reads or writes.
    Small,
}

/// One modelled function under test: `call` uses `P` (a `char *`) for the pointer
/// under test, which must point to `size` bytes; `setup` runs first (only when `P` is
/// the too-small block, `fill` initialises its bytes, e.g. a string without room for
/// its NUL).
struct Case {
    name: &'static str,
    size: u32,
    setup: &'static str,
    fill: &'static str,
    call: &'static str,
}

const fn case(name: &'static str, size: u32, call: &'static str) -> Case {
    Case {
        name,
        size,
        setup: "",
        fill: "",
        call,
    }
}

fn source(prelude: &str, c: &Case, bad: Bad) -> String {
    let n = c.size;
    let make = match bad {
        Bad::Null => "char *P = (char *)null_pointer;".to_string(),
        Bad::Freed => format!("char *P = (char *)malloc({n}); free(P);"),
        Bad::Small => format!(
            "char *P = (char *)malloc({}); {}",
            n - 1,
            if c.fill.is_empty() {
                String::new()
            } else {
                format!("{};", c.fill.replace("LEN", &(n - 1).to_string()))
            }
        ),
    };
    format!(
        // `sink = P` lets P escape, so -O2 cannot drop writes through it as dead.
        "{prelude}\nint main(void) {{\n  {}\n  {make}\n  sink = P;\n  {};\n  return 0;\n}}\n",
        c.setup, c.call
    )
}

fn expected(bad: Bad) -> ErrorKind {
    match bad {
        Bad::Null => ErrorKind::NullDereference,
        Bad::Freed => ErrorKind::UseAfterFree,
        Bad::Small => ErrorKind::OutOfBounds,
    }
}

/// Run every case with every bad pointer at -O0 and -O2; report all mismatches at once.
fn check_family(prelude: &str, ext: &str, cases: &[Case], skip: &[(&str, &str)]) {
    let mut wrong = Vec::new();
    for c in cases {
        for bad in [Bad::Null, Bad::Freed, Bad::Small] {
            let tag = format!("{bad:?}");
            if skip.contains(&(c.name, tag.as_str())) {
                continue;
            }
            let src = source(prelude, c, bad);
            for opt in OPT_LEVELS {
                let r = run_source(&src, ext, opt);
                let want = expected(bad);
                let got = r.failure.as_ref().map(|f| f.kind);
                if got != Some(want) {
                    wrong.push(format!(
                        "{} with {bad:?} at {opt}: expected {want}, got {:?} ({})",
                        c.name,
                        r.verdict,
                        r.failure
                            .as_ref()
                            .map(|f| f.to_string())
                            .unwrap_or_default()
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Calls through a volatile function pointer reach the modelled function even where
/// clang would otherwise turn the call into an intrinsic.
#[test]
fn string_and_memory_functions() {
    check_family(
        C_PRELUDE,
        "c",
        &[
            case("strcpy", 5, "strcpy(P, \"abcd\")"),
            case("strncpy", 8, "strncpy(P, \"ab\", 8)"),
            Case {
                setup: "void *(*volatile set)(void *, int, size_t) = memset;",
                ..case("memset", 8, "set(P, 0, 8)")
            },
            Case {
                setup: "void *(*volatile copy)(void *, const void *, size_t) = memcpy;",
                ..case("memcpy", 8, "copy(P, src, 8)")
            },
            Case {
                setup: "int (*volatile compare)(const void *, const void *, size_t) = memcmp;",
                fill: "memset(P, 0, LEN)",
                ..case("memcmp", 8, "result = compare(P, src, 8)")
            },
            Case {
                setup: "size_t (*volatile length)(const char *) = strlen;",
                fill: "memset(P, 'a', LEN)",
                ..case("strlen", 4, "result = length(P)")
            },
            Case {
                fill: "memset(P, 'a', LEN)",
                ..case("strcmp", 4, "result = strcmp(P, \"aaa\")")
            },
            Case {
                fill: "memset(P, 'a', LEN)",
                ..case("strdup", 4, "sink = strdup(P)")
            },
            Case {
                fill: "memset(P, 0, LEN)",
                ..case("strcat", 4, "strcat(P, \"abc\")")
            },
            case("strtol endptr", 8, "strtol(\"12\", (char **)P, 10)"),
            Case {
                fill: "memset(P, 'a', LEN)",
                ..case("atoi", 4, "result = atoi(P)")
            },
            Case {
                fill: "memset(P, 0, LEN)",
                ..case("qsort", 8, "qsort(P, 8, 1, by_value)")
            },
        ],
        // strtol's end pointer may be NULL.
        &[("strtol endptr", "Null")],
    );
}

#[test]
fn stdio_and_printf_functions() {
    check_family(
        C_PRELUDE,
        "c",
        &[
            case("sprintf", 8, "sprintf(P, \"%d\", 1234567)"),
            case("snprintf", 8, "snprintf(P, 8, \"%s\", \"1234567\")"),
            Case {
                fill: "memset(P, 'a', LEN)",
                ..case("printf %s", 4, "printf(\"%s\", P)")
            },
            case("printf %n", 4, "printf(\"ab%n\", (int *)P)"),
            case(
                "snprintf %lln",
                8,
                "snprintf(src, 8, \"ab%lln\", (long long *)P)",
            ),
            Case {
                fill: "memset(P, 'a', LEN)",
                ..case("puts", 4, "puts(P)")
            },
            Case {
                fill: "memset(P, 'a', LEN)",
                ..case("fputs", 4, "fputs(P, stdout)")
            },
            Case {
                fill: "memset(P, 'a', LEN)",
                ..case("fwrite", 8, "fwrite(P, 1, 8, stdout)")
            },
        ],
        // glibc prints "(null)" for a NULL %s.
        &[("printf %s", "Null")],
    );
}

#[test]
fn stream_arguments_must_be_live() {
    // A NULL FILE * is dereferenced by glibc.
    let src = format!("{C_PRELUDE}int main(void) {{ FILE *f = (FILE *)null_pointer; fputs(\"x\", f); return 0; }}");
    for opt in OPT_LEVELS {
        assert_verdict(
            &run_source(&src, "c", opt),
            Some(ErrorKind::NullDereference),
            opt,
        );
    }
}

#[test]
fn malloc_family() {
    check_family(
        C_PRELUDE,
        "c",
        &[
            case("posix_memalign", 8, "posix_memalign((void **)P, 16, 8)"),
            case("time", 8, "time((time_t *)P)"),
            case(
                "clock_gettime",
                16,
                "clock_gettime(CLOCK_REALTIME, (struct timespec *)P)",
            ),
        ],
        &[("time", "Null")],
    );
    // Freeing through bad pointers: NULL is allowed, freed blocks are double frees.
    let cases = [
        ("free(NULL)", "free(null_pointer)", None),
        (
            "free twice",
            "char *p = malloc(4); sink = p; free(p); free(p)",
            Some(ErrorKind::DoubleFree),
        ),
        (
            "realloc of a freed block",
            "char *p = malloc(4); sink = p; free(p); sink = realloc(p, 8)",
            Some(ErrorKind::DoubleFree),
        ),
        (
            "realloc of an interior pointer",
            "char *p = malloc(4); sink = p; sink = realloc(p + 1, 8)",
            Some(ErrorKind::InvalidFree),
        ),
        ("realloc(NULL)", "sink = realloc(null_pointer, 8)", None),
    ];
    for (what, body, want) in cases {
        let src = format!("{C_PRELUDE}int main(void) {{ {body}; return 0; }}");
        for opt in OPT_LEVELS {
            assert_verdict(&run_source(&src, "c", opt), want, &format!("{what} {opt}"));
        }
    }
}

#[test]
fn pthread_threads_keys_and_once() {
    check_family(
        C_PRELUDE,
        "c",
        &[
            case(
                "pthread_create",
                8,
                "pthread_create((pthread_t *)P, 0, routine, 0)",
            ),
            Case {
                setup: "pthread_t t; pthread_create(&t, 0, routine, 0);",
                ..case("pthread_join result", 8, "pthread_join(t, (void **)P)")
            },
            case(
                "pthread_attr_init",
                56,
                "pthread_attr_init((pthread_attr_t *)P)",
            ),
            Case {
                setup: "pthread_t t;",
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_create attr",
                    56,
                    "pthread_create(&t, (pthread_attr_t *)P, routine, 0)",
                )
            },
            case(
                "pthread_key_create",
                4,
                "pthread_key_create((pthread_key_t *)P, 0)",
            ),
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_once",
                    4,
                    "pthread_once((pthread_once_t *)P, once_routine)",
                )
            },
        ],
        // pthread_join's result pointer and the attributes may be NULL.
        &[
            ("pthread_join result", "Null"),
            ("pthread_create attr", "Null"),
        ],
    );
}

#[test]
fn pthread_mutexes_and_spin_locks() {
    check_family(
        C_PRELUDE,
        "c",
        &[
            case(
                "pthread_mutex_init",
                40,
                "pthread_mutex_init((pthread_mutex_t *)P, 0)",
            ),
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_mutex_lock",
                    40,
                    "pthread_mutex_lock((pthread_mutex_t *)P)",
                )
            },
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_mutex_trylock",
                    40,
                    "pthread_mutex_trylock((pthread_mutex_t *)P)",
                )
            },
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_mutex_unlock",
                    40,
                    "pthread_mutex_unlock((pthread_mutex_t *)P)",
                )
            },
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_mutex_destroy",
                    40,
                    "pthread_mutex_destroy((pthread_mutex_t *)P)",
                )
            },
            case(
                "pthread_mutexattr_init",
                4,
                "pthread_mutexattr_init((pthread_mutexattr_t *)P)",
            ),
            Case {
                setup: "pthread_mutex_t m;",
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_mutex_init attr",
                    4,
                    "pthread_mutex_init(&m, (pthread_mutexattr_t *)P)",
                )
            },
            case(
                "pthread_spin_init",
                4,
                "pthread_spin_init((pthread_spinlock_t *)P, 0)",
            ),
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_spin_lock",
                    4,
                    "pthread_spin_lock((pthread_spinlock_t *)P)",
                )
            },
        ],
        // The attributes may be NULL.
        &[("pthread_mutex_init attr", "Null")],
    );
}

#[test]
fn pthread_condition_variables_rwlocks_and_barriers() {
    check_family(
        C_PRELUDE,
        "c",
        &[
            case("pthread_cond_init", 48, "pthread_cond_init((pthread_cond_t *)P, 0)"),
            Case {
                fill: "memset(P, 0, LEN)",
                ..case("pthread_cond_signal", 48, "pthread_cond_signal((pthread_cond_t *)P)")
            },
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_cond_broadcast",
                    48,
                    "pthread_cond_broadcast((pthread_cond_t *)P)",
                )
            },
            Case {
                setup: "pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_mutex_lock(&m);",
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_cond_wait",
                    48,
                    "pthread_cond_wait((pthread_cond_t *)P, &m)",
                )
            },
            Case {
                setup: "static pthread_cond_t c = PTHREAD_COND_INITIALIZER;",
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_cond_wait mutex",
                    40,
                    "pthread_cond_wait(&c, (pthread_mutex_t *)P)",
                )
            },
            Case {
                setup: "static pthread_cond_t c = PTHREAD_COND_INITIALIZER; pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER; pthread_mutex_lock(&m);",
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_cond_timedwait deadline",
                    16,
                    "pthread_cond_timedwait(&c, &m, (struct timespec *)P)",
                )
            },
            case("pthread_rwlock_init", 56, "pthread_rwlock_init((pthread_rwlock_t *)P, 0)"),
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_rwlock_rdlock",
                    56,
                    "pthread_rwlock_rdlock((pthread_rwlock_t *)P)",
                )
            },
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_rwlock_wrlock",
                    56,
                    "pthread_rwlock_wrlock((pthread_rwlock_t *)P)",
                )
            },
            case(
                "pthread_barrier_init",
                32,
                "pthread_barrier_init((pthread_barrier_t *)P, 0, 1)",
            ),
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "pthread_barrier_wait",
                    32,
                    "pthread_barrier_wait((pthread_barrier_t *)P)",
                )
            },
        ],
        &[],
    );
}

#[test]
fn cxx_runtime_functions() {
    check_family(
        CPP_PRELUDE,
        "cpp",
        &[
            case(
                "condition_variable::notify_one",
                48,
                "((std::condition_variable *)P)->notify_one()",
            ),
            case(
                "condition_variable::notify_all",
                48,
                "((std::condition_variable *)P)->notify_all()",
            ),
            Case {
                setup: "std::mutex m; std::unique_lock<std::mutex> lock(m);",
                ..case(
                    "condition_variable::wait",
                    48,
                    "((std::condition_variable *)P)->wait(lock)",
                )
            },
            Case {
                fill: "memset(P, 0, LEN)",
                ..case("std::thread::join", 8, "((std::thread *)P)->join()")
            },
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "__cxa_guard_acquire",
                    8,
                    "__cxa_guard_acquire((long long *)P)",
                )
            },
            Case {
                fill: "memset(P, 0, LEN)",
                ..case(
                    "__cxa_guard_release",
                    8,
                    "__cxa_guard_release((long long *)P)",
                )
            },
        ],
        &[],
    );
    // operator delete of a freed block is a double free.
    let src = format!("{CPP_PRELUDE}int main() {{ int *p = new int(1); sink = p; delete p; delete p; return 0; }}");
    for opt in OPT_LEVELS {
        assert_verdict(
            &run_source(&src, "cpp", opt),
            Some(ErrorKind::DoubleFree),
            opt,
        );
    }
}

#[test]
fn a_missing_argument_is_an_error_not_zero() {
    // Declared with fewer parameters than the real function reads: pthread_create then
    // must not read a start routine of 0 and pass.
    let src =
        "int pthread_create(void *);\nint main(void) { long t; pthread_create(&t); return 0; }";
    for opt in OPT_LEVELS {
        let r = run_source(src, "c", opt);
        assert_verdict(&r, Some(ErrorKind::OutOfBounds), opt);
        let msg = r.failure.map(|f| f.message).unwrap_or_default();
        assert!(msg.contains("argument"), "{msg}");
    }
}

#[test]
fn bounded_string_functions_read_only_up_to_their_bound() {
    // Four bytes without a NUL are a valid input when at most four are read, and out
    // of bounds when five may be.
    let fill = "char *p = malloc(4); memcpy(p, \"abcd\", 4); sink = p;";
    for (call, want) in [
        ("result = strnlen(p, 4)", None),
        ("result = strncmp(p, \"abcd\", 4)", None),
        ("sink = strndup(p, 4)", None),
        ("result = strnlen(p, 5)", Some(ErrorKind::OutOfBounds)),
        (
            "result = strncmp(p, \"abcde\", 5)",
            Some(ErrorKind::OutOfBounds),
        ),
    ] {
        let src = format!("{C_PRELUDE}int main(void) {{ {fill} {call}; return 0; }}");
        for opt in OPT_LEVELS {
            assert_verdict(&run_source(&src, "c", opt), want, &format!("{call} {opt}"));
        }
    }
}
