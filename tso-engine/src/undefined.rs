//! Before exploring: every function the program calls that has neither a definition
//! nor a model. A function the user declared but linked no source for is a mistake in
//! the test's setup, not a limitation of the checker, and the two are told apart.

use crate::ir::{Callee, Inst, Location, Program};
use crate::natives::Natives;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One called function without a body or a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Undefined {
    pub name: String,
    /// The first call, in module order.
    pub call_site: Option<Location>,
    /// Where the user's own files declare it (`file`, line), if they do.
    pub declared: Option<(String, u32)>,
}

impl Undefined {
    /// One sentence for people.
    pub(crate) fn sentence(&self) -> String {
        let name = crate::ir::debug::display_name(&self.name);
        let at = self
            .call_site
            .as_ref()
            .map(|l| format!(" (called at {}:{})", short(&l.file), l.line))
            .unwrap_or_default();
        match &self.declared {
            Some((file, line)) => format!(
                "`{name}` is declared in {}:{line} but defined in no source of this test; add its file with `.source(...)`{at}",
                short(file)
            ),
            None => format!("`{name}` is not modelled by the checker{at}"),
        }
    }
}

fn short(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Called functions with no definition and no native, each once, in module order.
pub(crate) fn undefined_functions(program: &Program, natives: &Natives) -> Vec<Undefined> {
    let mut found: BTreeMap<u32, Option<Location>> = BTreeMap::new();
    for f in &program.functions {
        let Some(body) = &f.body else { continue };
        for block in body.blocks.iter() {
            for (inst, loc) in block.insts.iter().zip(block.locs.iter()) {
                let Inst::Call {
                    callee: Callee::Direct(callee),
                    ..
                } = inst
                else {
                    continue;
                };
                let g = &program.functions[*callee as usize];
                if g.body.is_some() || g.name.starts_with("llvm.") || natives.get(&g.name).is_some()
                {
                    continue;
                }
                found
                    .entry(*callee)
                    .or_insert_with(|| program.location(*loc).cloned());
            }
        }
    }
    if found.is_empty() {
        return Vec::new();
    }
    let files = user_files(program);
    found
        .into_iter()
        .map(|(f, call_site)| {
            let name = program.functions[f as usize].name.clone();
            let shown = crate::ir::debug::display_name(&name);
            let plain = shown
                .split('<')
                .next()
                .unwrap_or(&shown)
                .rsplit("::")
                .next()
                .unwrap_or(&shown)
                .to_owned();
            let declared = files.iter().find_map(|file| declaration_in(file, &plain));
            Undefined {
                name,
                call_site,
                declared,
            }
        })
        .collect()
}

/// The user's own files the program came from, and the headers next to them
/// (a header that only declares functions leaves no trace in the debug info).
fn user_files(program: &Program) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    let known = program
        .locations
        .iter()
        .filter(|l| !l.system)
        .map(|l| l.file.to_string())
        .chain(
            program
                .debug
                .globals
                .iter()
                .flatten()
                .chain(program.debug.locals.iter())
                .map(|v| v.file.to_string()),
        );
    for file in known {
        if crate::ir::debug::is_system_header(&file) || file.is_empty() {
            continue;
        }
        let path = PathBuf::from(&file);
        if let Some(dir) = path.parent() {
            if !dirs.contains(&dir.to_path_buf()) {
                dirs.push(dir.to_path_buf());
            }
        }
        if !files.contains(&path) {
            files.push(path);
        }
    }
    // Headers first: that is where a declaration is meant to live.
    let mut headers = Vec::new();
    for dir in &dirs {
        if let Ok(entries) = std::fs::read_dir(dir) {
            let mut found: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| is_header(p))
                .collect();
            found.sort();
            for h in found {
                if !headers.contains(&h) {
                    headers.push(h);
                }
            }
        }
    }
    files.retain(|f| !headers.contains(f));
    headers.extend(files);
    headers
}

fn is_header(p: &Path) -> bool {
    matches!(
        p.extension().and_then(|e| e.to_str()),
        Some("h" | "hh" | "hpp" | "hxx" | "inc")
    )
}

/// The first line of `file` that declares a function `name`: `name` followed by `(`,
/// not inside a preprocessor line or a comment, not called in an expression.
fn declaration_in(file: &Path, name: &str) -> Option<(String, u32)> {
    let text = std::fs::read_to_string(file).ok()?;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with('#') || t.starts_with("//") || t.starts_with('*') || t.starts_with("/*") {
            continue;
        }
        let Some(at) = find_identifier(line, name) else {
            continue;
        };
        let after = line[at + name.len()..].trim_start();
        let before = line[..at].trim_end();
        // A declaration has its return type in front: `int ws_drain(...)`, `node *pop(...)`.
        let last_word = before
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        let typed = before
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '*' || c == '&')
            && !matches!(last_word, "return" | "else" | "do" | "case" | "goto");
        if after.starts_with('(') && typed && !before.contains('=') {
            return Some((file.display().to_string(), i as u32 + 1));
        }
    }
    None
}

/// Byte position of `name` as a whole identifier in `line`.
fn find_identifier(line: &str, name: &str) -> Option<usize> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = line[from..].find(name) {
        let at = from + i;
        let before_ok = line[..at].chars().next_back().is_none_or(|c| !ident(c));
        let after_ok = line[at + name.len()..]
            .chars()
            .next()
            .is_none_or(|c| !ident(c));
        if before_ok && after_ok {
            return Some(at);
        }
        from = at + name.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prototype_is_a_declaration_and_a_call_is_not() {
        let dir = std::env::temp_dir().join(format!("tso-undefined-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let h = dir.join("ws.h");
        std::fs::write(
            &h,
            "#ifndef WS\n#define WS\n/* ws_drain(q) empties q */\nint x = ws_drain(3);\n    ws_drain(q);\n    return ws_drain(q);\nint ws_drain(int n);\n#endif\n",
        )
        .expect("write");
        assert_eq!(
            declaration_in(&h, "ws_drain"),
            Some((h.display().to_string(), 7))
        );
        assert_eq!(declaration_in(&h, "ws_dra"), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
