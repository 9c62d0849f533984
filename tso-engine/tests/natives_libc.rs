//! C library natives added for tests: qsort/bsearch, rand, ctype, errno, math, the extra
//! string functions, strtok, time/sleep; unmodelled functions stay "unsupported".

mod natives_support;

use natives_support::expect;
use tso_engine::ErrorKind;

const PRELUDE: &str = "#define _GNU_SOURCE\n#include <assert.h>\n#include <ctype.h>\n#include <errno.h>\n#include <math.h>\n#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <strings.h>\n#include <time.h>\n#include <unistd.h>\n";

fn c(body: &str) -> String {
    format!("{PRELUDE}{body}")
}

#[test]
fn qsort_sorts_with_the_program_comparator() {
    let reports = expect(&c("static int cmp(const void *a, const void *b) { int x = *(const int *)a, y = *(const int *)b; return (x > y) - (x < y); }
        static int rev(const void *a, const void *b) { return cmp(b, a); }
        int main(void) { int v[7] = {5, -1, 9, 3, 3, 0, 7};
            qsort(v, 7, sizeof v[0], cmp); for (int i = 0; i < 7; i++) printf(\"%d \", v[i]);
            qsort(v, 7, sizeof v[0], rev); printf(\"| %d %d\\n\", v[0], v[6]);
            int key = 7; int *hit = bsearch(&key, v, 7, sizeof v[0], rev); assert(hit == &v[1]);
            key = 4; assert(bsearch(&key, v, 7, sizeof v[0], rev) == NULL);
            qsort(v, 0, sizeof v[0], cmp); return 0; }"), "c", None);
    for r in reports {
        assert_eq!(r.output, "-1 0 3 3 5 7 9 | 9 -1\n");
    }
}

#[test]
fn qsort_moves_pointers_with_their_provenance() {
    expect(&c("static int by_value(const void *a, const void *b) { return **(int *const *)a - **(int *const *)b; }
        int main(void) { int x = 3, y = 1, z = 2; int *p[3] = {&x, &y, &z};
            qsort(p, 3, sizeof p[0], by_value); assert(p[0] == &y && p[1] == &z && p[2] == &x); *p[2] = 9; assert(x == 9); return 0; }"), "c", None);
}

#[test]
fn rand_is_deterministic_and_reseedable() {
    let reports = expect(&c("int main(void) { int a = rand(); srand(1); int b = rand(); assert(a == b);
            srand(42); int s1 = rand(), s2 = rand(); srand(42); assert(rand() == s1 && rand() == s2);
            assert(s1 >= 0 && s1 <= RAND_MAX); unsigned seed = 42; assert(rand_r(&seed) == s1);
            printf(\"%d\\n\", a); return 0; }"), "c", None);
    // The POSIX example generator's first value for seed 1.
    let first = (1u32.wrapping_mul(1_103_515_245).wrapping_add(12_345) / 65_536) % 32_768;
    for r in reports {
        assert_eq!(r.output, format!("{first}\n"));
    }
}

#[test]
fn ctype_macros_and_functions() {
    expect(&c("int main(void) { volatile int d = '7', a = 'q', s = '\\t', p = '!', u = 'Z';
            assert(isdigit(d) && !isdigit(a) && isalpha(a) && isspace(s) && ispunct(p) && isupper(u) && !isupper(a));
            assert(isxdigit('f') && !isxdigit('g') && isalnum(d) && !isprint(s) && isblank(s) && iscntrl(s));
            assert(toupper(a) == 'Q' && tolower(u) == 'z' && toupper(d) == '7' && tolower(-1) == -1);
            assert(!isalpha(200)); return 0; }"), "c", None);
}

#[test]
fn errno_is_per_thread() {
    expect(&c("static void *w(void *a) { (void)a; assert(errno == 0); errno = 7; return (void *)&errno; }
        int main(void) { errno = 3; pthread_t t; void *theirs; pthread_create(&t, NULL, w, NULL); pthread_join(t, &theirs);
            assert(errno == 3); assert(theirs != (void *)&errno); return 0; }"), "c", None);
    expect(
        &c("int main(void) { free(&errno); return 0; }"),
        "c",
        Some(ErrorKind::InvalidFree),
    );
}

#[test]
fn math_functions() {
    let reports = expect(&c("int main(void) { volatile double two = 2.0, x = 2.5; volatile float f = 9.0f;
            assert(fabs(sqrt(two) * sqrt(two) - 2.0) < 1e-12); assert(floor(x) == 2.0 && ceil(x) == 3.0);
            assert(pow(two, 10) == 1024.0 && sqrtf(f) == 3.0f && fabs(exp(log(x)) - x) < 1e-12);
            assert(fabs(sin(0.0)) < 1e-15 && cos(0.0) == 1.0 && fmod(7.0, two) == 1.0);
            printf(\"%.3f\\n\", sqrt(x)); return 0; }"), "c", None);
    for r in reports {
        assert_eq!(r.output, "1.581\n");
    }
}

#[test]
fn extra_string_functions() {
    expect(&c("int main(void) { char buf[16]; const char *s = \"abc,def\";
            assert(strspn(s, \"cba\") == 3 && strcspn(s, \",\") == 3 && strpbrk(s, \"fe\") == s + 5 && strpbrk(s, \"xyz\") == NULL);
            assert(memrchr(s, 'c', 7) == s + 2); char *end = stpcpy(buf, \"hey\"); assert(end == buf + 3 && *end == 0);
            bzero(buf, 4); assert(buf[0] == 0 && buf[3] == 0); assert(bcmp(\"ab\", \"ab\", 2) == 0 && bcmp(\"ab\", \"ac\", 2) != 0);
            assert(strcasecmp(\"HeLLo\", \"hello\") == 0 && strncasecmp(\"abX\", \"ABy\", 2) == 0 && strcasecmp(\"a\", \"B\") < 0);
            return 0; }"), "c", None);
}

#[test]
fn strtok_splits_tokens() {
    let reports = expect(&c("int main(void) { char text[] = \",a,bc,,d\"; char *save;
            for (char *t = strtok(text, \",\"); t; t = strtok(NULL, \",\")) printf(\"[%s]\", t);
            char more[] = \"x y\"; for (char *t = strtok_r(more, \" \", &save); t; t = strtok_r(NULL, \" \", &save)) printf(\"<%s>\", t);
            printf(\"\\n\"); return 0; }"), "c", None);
    for r in reports {
        assert_eq!(r.output, "[a][bc][d]<x><y>\n");
    }
}

#[test]
fn time_and_sleep_are_not_modelled() {
    expect(&c("int main(void) { time_t t = 5; assert(time(NULL) == 0 && time(&t) == 0 && t == 0);
            struct timespec ts = {1, 1}; assert(nanosleep(&ts, NULL) == 0 && usleep(10) == 0 && sleep(1) == 0);
            assert(clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts.tv_sec == 0); assert(getpid() > 0); return 0; }"), "c", None);
}

#[test]
fn unmodelled_functions_are_unsupported() {
    let reports = expect(
        &c("int main(void) { FILE *f = fopen(\"x\", \"r\"); return f != NULL; }"),
        "c",
        Some(ErrorKind::Unsupported),
    );
    for r in reports {
        assert!(r.failure.is_some_and(|f| f.message.contains("fopen")));
    }
}

#[test]
fn longjmp_misuse_is_an_error() {
    let pre = "#include <setjmp.h>\n#include <pthread.h>\n#include <stdlib.h>\nstatic jmp_buf env;\nvoid *volatile null_pointer;\n";
    // setjmp writes its jmp_buf.
    expect(
        &format!("{pre}int main(void) {{ return setjmp(*(jmp_buf *)null_pointer); }}"),
        "c",
        Some(ErrorKind::NullDereference),
    );
    // A jmp_buf setjmp never filled.
    expect(
        &format!("{pre}int main(void) {{ longjmp(env, 1); }}"),
        "c",
        Some(ErrorKind::NullDereference),
    );
    // longjmp to a setjmp made by another thread.
    expect(
        &format!(
            "{pre}static void *t(void *a) {{ longjmp(env, 1); return a; }}
            int main(void) {{ pthread_t h; if (setjmp(env) == 0) {{ pthread_create(&h, 0, t, 0); pthread_join(h, 0); }} return 0; }}"
        ),
        "c",
        Some(ErrorKind::PthreadMisuse),
    );
    // longjmp out of a qsort comparator would skip qsort's own frame.
    expect(
        &format!(
            "{pre}static int cmp(const void *a, const void *b) {{ (void)a; (void)b; longjmp(env, 1); }}
            int main(void) {{ int v[2] = {{2, 1}}; if (setjmp(env) == 0) qsort(v, 2, sizeof v[0], cmp); return 0; }}"
        ),
        "c",
        Some(ErrorKind::Unsupported),
    );
}

#[test]
fn setjmp_in_a_loop_keeps_the_state_space_finite() {
    // One marker per setjmp call site: jumping back forever revisits the same state
    // (a non-terminating loop) instead of growing the frame with new markers.
    expect(
        "#include <setjmp.h>\nstatic jmp_buf env;
        int main(void) { setjmp(env); longjmp(env, 1); }",
        "c",
        Some(ErrorKind::NonTerminating),
    );
}

#[test]
fn sigsetjmp_writes_the_signal_mask_only_when_asked() {
    // __sigsetjmp(env, 0) writes 72 bytes (what pthread_cleanup_push's cancel buffer
    // holds); with a nonzero savemask it writes the whole 200-byte sigjmp_buf.
    let call = |size: u32, savemask: u32| {
        format!(
            "#include <setjmp.h>\n#include <stdlib.h>\n
            int main(void) {{ void *b = malloc({size}); if (!b) return 1;
            int r = __sigsetjmp(b, {savemask}); free(b); return r; }}"
        )
    };
    expect(&call(72, 0), "c", None);
    expect(&call(71, 0), "c", Some(ErrorKind::OutOfBounds));
    expect(&call(72, 1), "c", Some(ErrorKind::OutOfBounds));
    expect(&call(200, 1), "c", None);
}
