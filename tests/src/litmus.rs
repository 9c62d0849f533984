//! The litmus corpus `tests/litmus/NAME.c` + `NAME.expect`: which printed outcome
//! lines each memory model allows.

use crate::check::Model;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One outcome line and whether SC and TSO allow it.
#[derive(Clone, Debug)]
pub struct ExpectedOutcome {
    pub line: String,
    pub sc_allowed: bool,
    pub tso_allowed: bool,
}

#[derive(Clone, Debug)]
pub struct LitmusTest {
    pub name: String,
    pub source: PathBuf,
    pub outcomes: Vec<ExpectedOutcome>,
}

impl LitmusTest {
    /// The lines `model` allows: the exact set a correct checker reaches.
    pub fn allowed(&self, model: Model) -> BTreeSet<String> {
        self.outcomes
            .iter()
            .filter(|o| match model {
                Model::Sc => o.sc_allowed,
                Model::Tso => o.tso_allowed,
                Model::C11 => panic!("the x86 litmus corpus states no C11 outcomes"),
            })
            .map(|o| o.line.clone())
            .collect()
    }
}

fn allowed_field(field: &str, model: &str, path: &Path, n: usize) -> Result<bool, String> {
    match field
        .trim()
        .strip_prefix(model)
        .and_then(|r| r.strip_prefix('='))
    {
        Some("allowed") => Ok(true),
        Some("forbidden") => Ok(false),
        _ => Err(format!(
            "{}:{n}: expected `{model}=allowed|forbidden`, found {field:?}",
            path.display()
        )),
    }
}

/// Parse `NAME.expect`: `<line>\tsc=allowed|forbidden\ttso=allowed|forbidden`.
pub fn read_expect(path: &Path) -> Result<Vec<ExpectedOutcome>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = raw.split('\t').collect();
        if fields.len() != 3 {
            return Err(format!(
                "{}:{}: expected 3 tab-separated fields, found {}",
                path.display(),
                i + 1,
                fields.len()
            ));
        }
        out.push(ExpectedOutcome {
            line: fields[0].to_string(),
            sc_allowed: allowed_field(fields[1], "sc", path, i + 1)?,
            tso_allowed: allowed_field(fields[2], "tso", path, i + 1)?,
        });
    }
    if out.is_empty() {
        return Err(format!("{}: no outcomes", path.display()));
    }
    Ok(out)
}

/// Every litmus test in `dir` (each `NAME.c` with a `NAME.expect`), sorted by name.
/// A `.c` without `.expect` is an error: the corpus must say what it expects.
pub fn read_dir(dir: &Path) -> Result<Vec<LitmusTest>, String> {
    let mut tests = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()) != Some("c") {
            continue;
        }
        let name = p
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let outcomes = read_expect(&p.with_extension("expect"))?;
        tests.push(LitmusTest {
            name,
            source: p,
            outcomes,
        });
    }
    tests.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(tests)
}
