//! The verdict corpus `tests/programs/**`: finding the programs and reading the
//! expectations in their header comments (see tests/programs/README.md).

use std::path::{Path, PathBuf};

/// What a program must produce under one memory model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    Pass,
    /// An error of this kind (`assertion`, `deadlock`, ...).
    Fail(String),
}

impl Expect {
    fn parse(text: &str) -> Result<Expect, String> {
        let mut words = text.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("pass"), None, _) => Ok(Expect::Pass),
            (Some("fail"), Some(kind), None) => Ok(Expect::Fail(kind.to_string())),
            _ => Err(format!("cannot read expectation {text:?}")),
        }
    }

    /// The exit status the contract gives this expectation: unsupported constructs are
    /// "the tool could not run" (2), every other error is a bug found (1).
    pub fn exit_status(&self) -> i32 {
        match self {
            Expect::Pass => 0,
            Expect::Fail(k) if k == "unsupported" => 2,
            Expect::Fail(_) => 1,
        }
    }

    /// The JSON `verdict` the contract gives this expectation.
    pub fn verdict(&self) -> &'static str {
        match self {
            Expect::Pass => "pass",
            Expect::Fail(k) if k == "unsupported" => "error",
            Expect::Fail(_) => "fail",
        }
    }

    pub fn kind(&self) -> Option<&str> {
        match self {
            Expect::Pass => None,
            Expect::Fail(k) => Some(k),
        }
    }
}

impl std::fmt::Display for Expect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expect::Pass => f.write_str("pass"),
            Expect::Fail(k) => write!(f, "fail {k}"),
        }
    }
}

/// One corpus program and its header.
#[derive(Clone, Debug)]
pub struct Program {
    pub path: PathBuf,
    pub expect_sc: Expect,
    pub expect_tso: Expect,
    /// `// clang-args:`; `None` means "check at -O0 and at -O2".
    pub clang_args: Option<Vec<String>>,
    /// `// check-args:` options for `cargo tso check` (e.g. `--allow-nontermination`).
    pub check_args: Vec<String>,
    /// `// error-contains: TEXT`: words the failure message must contain under both
    /// models (a deadlock's cycle, say), so a message that names the wrong thing fails.
    pub error_contains: Option<String>,
    /// The exact standard output, from `NAME.stdout` beside the program.
    pub stdout: Option<String>,
}

impl Program {
    /// The clang argument sets to check this program with.
    pub fn clang_arg_sets(&self) -> Vec<Vec<String>> {
        match &self.clang_args {
            Some(a) => vec![a.clone()],
            None => vec![vec!["-O0".into()], vec!["-O2".into()]],
        }
    }

    pub fn expect(&self, model: crate::check::Model) -> &Expect {
        match model {
            crate::check::Model::Sc => &self.expect_sc,
            crate::check::Model::Tso => &self.expect_tso,
            crate::check::Model::C11 => panic!("the verdict corpus states no C11 verdicts"),
        }
    }
}

/// Read the header of `path`: the leading block of `//` comment lines.
pub fn read_program(path: &Path) -> Result<Program, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut expect_sc = None;
    let mut expect_tso = None;
    let mut clang_args = None;
    let mut check_args = Vec::new();
    let mut error_contains = None;
    for line in text
        .lines()
        .take_while(|l| l.trim_start().starts_with("//") || l.trim().is_empty())
    {
        let body = line.trim_start().trim_start_matches('/').trim();
        let Some((key, value)) = body.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "expect-sc" => {
                expect_sc =
                    Some(Expect::parse(value).map_err(|e| format!("{}: {e}", path.display()))?)
            }
            "expect-tso" => {
                expect_tso =
                    Some(Expect::parse(value).map_err(|e| format!("{}: {e}", path.display()))?)
            }
            "clang-args" => clang_args = Some(value.split_whitespace().map(String::from).collect()),
            "check-args" => check_args = value.split_whitespace().map(String::from).collect(),
            "error-contains" => error_contains = Some(value.to_string()),
            _ => {}
        }
    }
    let expect_sc =
        expect_sc.ok_or_else(|| format!("{}: no `// expect-sc:` header", path.display()))?;
    let expect_tso = expect_tso.unwrap_or_else(|| expect_sc.clone());
    let stdout_path = path.with_extension("stdout");
    let stdout = if stdout_path.is_file() {
        Some(
            std::fs::read_to_string(&stdout_path)
                .map_err(|e| format!("{}: {e}", stdout_path.display()))?,
        )
    } else {
        None
    };
    Ok(Program {
        path: path.to_path_buf(),
        expect_sc,
        expect_tso,
        clang_args,
        check_args,
        error_contains,
        stdout,
    })
}

/// Every `.c`/`.cpp` file under `dir`, recursively, in sorted order.
pub fn sources_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(p.extension().and_then(|x| x.to_str()), Some("c" | "cpp")) {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

/// A path relative to `tests/`, for messages.
pub fn short(path: &Path) -> String {
    path.strip_prefix(crate::suite_dir())
        .unwrap_or(path)
        .display()
        .to_string()
}
