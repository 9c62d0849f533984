//! `cargo test` and `cargo nextest run` run the crate's TSO tests: a `harness = false`
//! integration test whose whole source is [`harness_main!`](crate::harness_main).
//!
//! ```toml
//! [dev-dependencies]
//! test-support = { ..., features = ["harness"] }
//!
//! [[test]]
//! name = "tso"
//! harness = false
//! ```
//!
//! Each TSO test is a test of that target, with the name `cargo tso test` gives it.
//! The harness lists them with `cargo tso test --list` and runs the selected ones in
//! one `cargo tso test` (libtest's flags are parsed by libtest-mimic and the
//! selection is passed on, so both pick the same tests), then reports each with
//! cargo-tso's verdict: the same names, filters and pass/fail as `cargo tso test`, in
//! the JUnit of whatever runner drives the target. Without cargo-tso on `PATH` (or in
//! `CARGO_TSO`), every test is listed as ignored and the harness says how to install
//! it; a test run anyway (`--ignored`) fails. Nothing passes unchecked.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};

use libtest_mimic::{Arguments, Failed, Trial};

use crate::{Manifest, MANIFEST_FILE_NAME};

/// How to install cargo-tso, printed when it is missing.
pub const INSTALL_HINT: &str = "cargo-tso is not installed (not on PATH, CARGO_TSO not set): \
the TSO tests are ignored. Install it with \
`cargo install --locked --git <this repository's URL> cargo-tso` \
(or `cargo install --locked --path cargo-tso` in a checkout); it needs LLVM 19 \
(Debian: `apt-get install clang-19 llvm-19-dev`)";

/// The crate whose tests the harness runs, from its compile-time environment.
#[derive(Debug, Clone)]
pub struct Crate {
    /// `CARGO_PKG_NAME`.
    pub package: &'static str,
    /// `CARGO_MANIFEST_DIR`.
    pub manifest_dir: &'static str,
    /// `OUT_DIR` (the build script's, holding the manifest), if the crate has one.
    pub out_dir: Option<&'static str>,
}

/// The `main` of a `harness = false` test target that runs the crate's TSO tests.
#[macro_export]
macro_rules! harness_main {
    () => {
        fn main() {
            $crate::harness::main($crate::harness::Crate {
                package: env!("CARGO_PKG_NAME"),
                manifest_dir: env!("CARGO_MANIFEST_DIR"),
                out_dir: option_env!("OUT_DIR"),
            })
        }
    };
}

/// Lists and runs the TSO tests of `krate` as libtest does, then exits.
pub fn main(krate: Crate) -> ! {
    let args = Arguments::from_args();
    let trials = match find_cargo_tso() {
        Some(cargo_tso) => match installed_trials(&krate, &cargo_tso, &args) {
            Ok(trials) => trials,
            Err(message) => {
                eprintln!("error: {message}");
                std::process::exit(101);
            }
        },
        None => {
            eprintln!("warning: {INSTALL_HINT}");
            missing_trials(&krate)
        }
    };
    libtest_mimic::run(&args, trials).exit()
}

/// `CARGO_TSO` if set, else `cargo-tso` on `PATH`.
fn find_cargo_tso() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CARGO_TSO") {
        return Some(PathBuf::from(path));
    }
    let name = format!("cargo-tso{}", std::env::consts::EXE_SUFFIX);
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(&name))
        .find(|path| path.is_file())
}

/// `cargo tso test` for this crate's package, with `extra` arguments.
fn cargo_tso_test(krate: &Crate, cargo_tso: &Path, extra: &[String]) -> Command {
    let mut command = Command::new(cargo_tso);
    command
        .args(["tso", "test", "--manifest-path"])
        .arg(Path::new(krate.manifest_dir).join("Cargo.toml"))
        .args(["-p", krate.package])
        .args(extra)
        .stdin(Stdio::null());
    command
}

/// The JSON events of one `cargo tso test --format json` run.
fn events(
    krate: &Crate,
    cargo_tso: &Path,
    extra: &[String],
) -> Result<Vec<serde_json::Value>, String> {
    let mut args = extra.to_vec();
    args.extend(["--format".to_owned(), "json".to_owned()]);
    let output = cargo_tso_test(krate, cargo_tso, &args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cargo_tso.display()))?;
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    // 0: all passed, 101: a test failed; anything else means no verdicts to trust.
    match output.status.code() {
        Some(0 | 101) => Ok(events),
        _ => Err(format!(
            "`cargo tso test {}` did not run ({}):\n{}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim_end()
        )),
    }
}

/// What one test came to in the shared run: `Ok` passed, `Err` failed with this text.
type Verdicts = Result<HashMap<String, Result<(), String>>, String>;

/// One trial per test cargo-tso lists; the first trial to run starts the one
/// `cargo tso test` run of the whole selection, the others read its verdicts.
fn installed_trials(
    krate: &Crate,
    cargo_tso: &Path,
    args: &Arguments,
) -> Result<Vec<Trial>, String> {
    let listed = events(krate, cargo_tso, &["--list".to_owned()])?;
    let shared: Arc<OnceLock<Verdicts>> = Arc::new(OnceLock::new());
    let selection = selection_args(args);
    let mut trials = Vec::new();
    for event in listed {
        if event["event"] != "discovered" {
            continue;
        }
        let Some(name) = event["name"].as_str().map(str::to_owned) else {
            continue;
        };
        let ignored = event["ignored"].as_bool().unwrap_or(false);
        let shared = Arc::clone(&shared);
        let (krate, cargo_tso, selection) =
            (krate.clone(), cargo_tso.to_owned(), selection.clone());
        trials.push(
            Trial::test(name.clone(), move || {
                let verdicts = shared.get_or_init(|| run_selection(&krate, &cargo_tso, &selection));
                match verdicts {
                    Err(message) => Err(Failed::from(message.as_str())),
                    Ok(verdicts) => match verdicts.get(&name) {
                        Some(Ok(())) => Ok(()),
                        Some(Err(text)) => Err(Failed::from(text.as_str())),
                        None => Err(Failed::from(format!(
                            "cargo tso test reported no verdict for {name}"
                        ))),
                    },
                }
            })
            .with_ignored_flag(ignored),
        );
    }
    Ok(trials)
}

/// libtest's selection, as `cargo tso test` takes it.
fn selection_args(args: &Arguments) -> Vec<String> {
    let mut selection = Vec::new();
    if let Some(filter) = &args.filter {
        selection.push(filter.clone());
    }
    if args.exact {
        selection.push("--exact".to_owned());
    }
    for skip in &args.skip {
        selection.extend(["--skip".to_owned(), skip.clone()]);
    }
    if args.ignored {
        selection.push("--ignored".to_owned());
    }
    if args.include_ignored {
        selection.push("--include-ignored".to_owned());
    }
    if let Some(threads) = args.test_threads {
        selection.extend(["--test-threads".to_owned(), threads.to_string()]);
    }
    selection
}

fn run_selection(krate: &Crate, cargo_tso: &Path, selection: &[String]) -> Verdicts {
    let mut verdicts = HashMap::new();
    for event in events(krate, cargo_tso, selection)? {
        if event["type"] != "test" {
            continue;
        }
        let Some(name) = event["name"].as_str() else {
            continue;
        };
        let verdict = match event["event"].as_str() {
            Some("ok") => Ok(()),
            Some("failed") => Err(event["stdout"].as_str().unwrap_or("failed").to_owned()),
            _ => continue,
        };
        verdicts.insert(name.to_owned(), verdict);
    }
    Ok(verdicts)
}

/// Without cargo-tso: the tests the build script declared, found by their `tso.h`
/// macros in the source text, each ignored (and failing when run anyway).
fn missing_trials(krate: &Crate) -> Vec<Trial> {
    let names = match krate.out_dir {
        Some(out_dir) => match Manifest::read(Path::new(out_dir).join(MANIFEST_FILE_NAME)) {
            Ok(manifest) => declared_names(&manifest),
            Err(_) => Vec::new(),
        },
        None => Vec::new(),
    };
    // Something must show in the report even when the names cannot be read.
    let names = if names.is_empty() {
        vec![format!("{}::tso_tests", krate.package)]
    } else {
        names
    };
    names
        .into_iter()
        .map(|name| Trial::test(name, || Err(Failed::from(INSTALL_HINT))).with_ignored_flag(true))
        .collect()
}

/// `<package>::<stem>::<test>` for each `TSO_TEST*(test, ...)` in the declared files,
/// and `<package>::<stem>` for a file with `main`.
fn declared_names(manifest: &Manifest) -> Vec<String> {
    let mut names = Vec::new();
    for test in &manifest.tests {
        let stem = test
            .path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let prefix = format!("{}::{stem}", manifest.package);
        let Ok(text) = std::fs::read_to_string(&test.path) else {
            names.push(prefix);
            continue;
        };
        let found = test_names_in(&text);
        if found.is_empty() || text.contains("main(") {
            names.push(prefix.clone());
        }
        names.extend(found.into_iter().map(|name| format!("{prefix}::{name}")));
    }
    names
}

/// The first argument of each `TSO_TEST`-family macro use outside preprocessor lines.
fn test_names_in(text: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
        let mut rest = line;
        while let Some(at) = rest.find("TSO_TEST") {
            let after = &rest[at + "TSO_TEST".len()..];
            let macro_end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let args = after[macro_end..].trim_start();
            if let Some(args) = args.strip_prefix('(') {
                let name: String = args
                    .trim_start()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    names.push(name);
                }
            }
            rest = &after[macro_end..];
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_names_are_the_macros_first_arguments() {
        let text = "#include <tso.h>\n#define TSO_TEST_LOCAL(x) x\n\
            TSO_TEST(push_pop) { }\nTSO_TEST_SHOULD_FAIL_WITH( lost , assertion) {}\n\
            TSO_TEST_IGNORE(slow) {} TSO_TEST_ROBUST(r) {}\nvoid f(void) { TSO_ASSERT(1); }\n";
        assert_eq!(test_names_in(text), ["push_pop", "lost", "slow", "r"]);
    }

    #[test]
    fn selection_is_passed_on_as_libtest_spells_it() {
        let args = Arguments::from_iter([
            "tso",
            "fifo",
            "--exact",
            "--skip",
            "slow",
            "--include-ignored",
            "--test-threads",
            "2",
        ]);
        assert_eq!(
            selection_args(&args),
            [
                "fifo",
                "--exact",
                "--skip",
                "slow",
                "--include-ignored",
                "--test-threads",
                "2"
            ]
        );
    }
}
