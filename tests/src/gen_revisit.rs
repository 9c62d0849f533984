//! Random programs whose stored states are reached again by paths that differ in what
//! raced with what: the case a stateless proof of dynamic partial-order reduction does
//! not cover, and the one the summaries of `tso-engine/src/explore/dpor.rs` ("Stored
//! states") are for. `differential_dpor.rs` checks them with the reduction and without.
//!
//! Three threads each run two to four steps (or four threads two to three) on three shared atomics holding 0
//! to 2. The steps make different orders meet in one state: stores of small constants
//! (two orders of equal stores leave one memory), read-modify-writes that cancel
//! (`+1` then `-1`), exchanges and compare-exchanges, a mutex around two steps, loads
//! whose value is folded into a register that a later step overwrites or masks (the
//! registers meet too), and a plain global written only under the mutex. After the
//! meeting point each thread may read again and branch on the value, so which order
//! the path took decides the outcome: `main` joins every thread and prints what each
//! one kept, and the shared values.

use crate::prng::Rng;
use std::fmt::Write;

/// A generated program's C source.
pub struct RevisitProgram {
    pub source: String,
}

pub fn generate(seed: u64) -> RevisitProgram {
    let mut rng = Rng::new(seed);
    // Four threads only with short bodies: the full search of each program stays
    // below about ten thousand states under TSO.
    let threads = if rng.below(4) == 0 { 4 } else { 3 };
    let steps = if threads == 4 { 3 } else { 4 };
    let mut source = String::from(
        "#include <pthread.h>\n#include <stdatomic.h>\n#include <stdio.h>\n\
         atomic_int v[3];\nint guarded;\nint kept[4];\n\
         pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n",
    );
    for t in 0..threads {
        let _ = writeln!(
            source,
            "static void *t{t}(void *arg) {{\n  (void)arg;\n  int r = 0;"
        );
        for _ in 0..2 + rng.below(steps - 1) {
            source.push_str("  ");
            source.push_str(&step(&mut rng));
            source.push('\n');
        }
        let _ = writeln!(source, "  kept[{t}] = r;\n  return 0;\n}}");
    }
    let _ = writeln!(source, "int main(void) {{\n  pthread_t h[{threads}];");
    for t in 0..threads {
        let _ = writeln!(source, "  pthread_create(&h[{t}], 0, t{t}, 0);");
    }
    for t in 0..threads {
        let _ = writeln!(source, "  pthread_join(h[{t}], 0);");
    }
    let kept: Vec<String> = (0..threads).map(|t| format!("kept[{t}]")).collect();
    let _ = writeln!(
        source,
        "  printf(\"{} %d %d %d %d\\n\", {}, atomic_load(&v[0]), atomic_load(&v[1]), \
         atomic_load(&v[2]), guarded);\n  return 0;\n}}",
        vec!["%d"; threads].join(" "),
        kept.join(", ")
    );
    RevisitProgram { source }
}

/// One step of a thread.
fn step(rng: &mut Rng) -> String {
    let x = rng.below(3);
    let y = rng.below(3);
    let c = rng.below(3);
    match rng.below(11) {
        0 | 1 => format!("atomic_store(&v[{x}], {c});"),
        2 => format!("atomic_fetch_add(&v[{x}], 1); atomic_fetch_sub(&v[{x}], 1);"),
        3 => format!("r = atomic_exchange(&v[{x}], {c}) == {c};"),
        4 => format!(
            "{{ int e = {c}; atomic_compare_exchange_strong(&v[{x}], &e, {}); }}",
            (c + 1) % 3
        ),
        5 => format!("r |= atomic_load(&v[{x}]) == {c};"),
        6 => format!("r = atomic_load(&v[{x}]) & 1;"),
        7 => format!(
            "if (atomic_load(&v[{x}]) == {c}) atomic_store(&v[{y}], {});",
            (c + 1) % 3
        ),
        8 => format!(
            "pthread_mutex_lock(&m); guarded = atomic_load(&v[{x}]); \
             atomic_store(&v[{y}], {c}); pthread_mutex_unlock(&m);"
        ),
        9 => format!("r = r * 3 + atomic_load(&v[{x}]);"),
        _ => "r = 0;".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_program_and_seeds_differ() {
        assert_eq!(generate(7).source, generate(7).source);
        assert_ne!(generate(7).source, generate(8).source);
        let p = generate(3).source;
        assert!(p.contains("int main(void)") && p.contains("printf"));
    }
}
