//! Shared helpers for the end-to-end suites in `tests/tests/`: locating the corpus,
//! building and running the real `cargo-tso` binary, running work in parallel, and the
//! random program generators of the differential suites.

pub mod binary;
pub mod check;
pub mod corpus;
pub mod gen_join;
pub mod gen_race;
pub mod gen_revisit;
pub mod gen_sc;
pub mod gen_tso;
pub mod gen_widths;
pub mod litmus;
pub mod parallel;
pub mod prng;
pub mod reduction_cases;

use std::path::PathBuf;

/// The workspace root (the parent of this crate).
pub fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}

/// `tests/` of the workspace, where the corpora live.
pub fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The seeds a soak test runs: `ci` of them from 0, or `TSO_SOAK=N` of them starting
/// at `TSO_SEED=S` (`scripts/soak-*.sh`).
pub fn soak_seeds(ci: u64) -> std::ops::Range<u64> {
    let count = env_number("TSO_SOAK", ci);
    let base = env_number("TSO_SEED", 0);
    base..base + count
}

/// Whether `TSO_SOAK` asks for a long run.
pub fn soaking() -> bool {
    std::env::var_os("TSO_SOAK").is_some()
}

/// A test's own directory `name` under `tmpdir` (pass `env!("CARGO_TARGET_TMPDIR")`,
/// which only test targets see), created.
pub fn test_dir(tmpdir: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(tmpdir).join(name);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// A number from the environment, or `default` when unset or unparsable.
pub fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}
