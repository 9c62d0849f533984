//! Before exploring: every function the program calls that has neither a definition
//! nor a model. Two cases, told apart the way a linker would:
//!
//! - A function that no source of the test defines and that is not part of the C or
//!   C++ implementation would fail to link: a mistake in the test's setup, reported
//!   before exploring ("declared in X but defined in no source").
//! - A function of the implementation (`is_library_function`) links fine; only its
//!   model is missing. A run that reaches the call reports `unsupported` there, with
//!   the path to it; a program whose runs never reach it is checked as usual. These
//!   are listed under `-v`.

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
            None => format!(
                "`{name}` is defined in no source of this test and is not a C or C++ library function{at}"
            ),
        }
    }

    /// The function and its first call site, for the list of unmodelled functions.
    pub(crate) fn listing(&self) -> String {
        let name = crate::ir::debug::display_name(&self.name);
        match &self.call_site {
            Some(l) => format!("{name} (called at {}:{})", short(&l.file), l.line),
            None => name,
        }
    }
}

/// The called functions without a definition or a model, split by whether a real link
/// would find them in the C or C++ library.
#[derive(Debug, Default)]
pub(crate) struct Unresolved {
    /// Defined nowhere: a load-time error.
    pub defined_nowhere: Vec<Undefined>,
    /// Library functions the checker does not model: `unsupported` when reached.
    pub unmodelled: Vec<Undefined>,
}

/// Whether `symbol` belongs to the C or C++ implementation, so that a link would
/// resolve it without any source of the test:
/// - a function glibc exports from libc or libm (`c_library_functions.txt`);
/// - a reserved identifier (`__x` or `_X`: C11 7.1.3 and C++ [lex.name] reserve them to
///   the implementation, so a program cannot define one itself), which covers glibc's
///   internal entry points (`__isoc99_sscanf`, `__printf_chk`), the C++ ABI (`__cxa_*`)
///   and the unwinder;
/// - a C++ function in namespace `std`, `__gnu_cxx` or `__cxxabiv1`, or an operator
///   new/delete: programs may not add declarations to `std` ([namespace.std]), so an
///   undefined one is libstdc++'s.
///
/// A name-based rule rather than debug info: clang records no declaration of a called
/// external function at -O0, and a preprocessed `.i` file declares everything in the
/// user's own file.
pub(crate) fn is_library_function(symbol: &str) -> bool {
    if symbol.starts_with("_Z") {
        let shown = crate::ir::debug::display_name(symbol);
        return [
            "std::",
            "__gnu_cxx::",
            "__cxxabiv1::",
            "operator new",
            "operator delete",
        ]
        .iter()
        .any(|p| shown.starts_with(p));
    }
    let mut chars = symbol.chars();
    if chars.next() == Some('_')
        && chars
            .next()
            .is_some_and(|c| c == '_' || c.is_ascii_uppercase())
    {
        return true;
    }
    c_library_names().binary_search(&symbol).is_ok()
}

fn c_library_names() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        include_str!("c_library_functions.txt")
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

fn short(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Called functions with no definition and no native, each once, in module order.
pub(crate) fn unresolved_functions(program: &Program, natives: &Natives) -> Unresolved {
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
    let mut unresolved = Unresolved::default();
    let (unmodelled, defined_nowhere): (Vec<_>, Vec<_>) = found
        .into_iter()
        .partition(|(f, _)| is_library_function(&program.functions[*f as usize].name));
    unresolved.unmodelled = unmodelled
        .into_iter()
        .map(|(f, call_site)| Undefined {
            name: program.functions[f as usize].name.clone(),
            call_site,
            declared: None,
        })
        .collect();
    if defined_nowhere.is_empty() {
        return unresolved;
    }
    let files = user_files(program);
    unresolved.defined_nowhere = defined_nowhere
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
        .collect();
    unresolved
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

    #[test]
    fn library_functions_are_what_a_link_would_resolve() {
        let names = c_library_names();
        assert!(
            names.windows(2).all(|w| w[0] < w[1]),
            "the list must be sorted"
        );
        for name in ["sscanf", "fopen", "pthread_create", "sin", "qsort"] {
            assert!(is_library_function(name), "{name}");
        }
        // Reserved identifiers: glibc's redirections and the C++ ABI.
        for name in [
            "__isoc99_sscanf",
            "__printf_chk",
            "__cxa_throw",
            "_Unwind_Resume",
        ] {
            assert!(is_library_function(name), "{name}");
        }
        // libstdc++: std::__throw_length_error(char const*), operator new(unsigned long).
        assert!(is_library_function("_ZSt20__throw_length_errorPKc"));
        assert!(is_library_function("_Znwm"));
        // The user's own functions, C and C++ (ws::drain(int)), are not.
        for name in ["ws_drain", "scanf_wrapper", "_ws_helper", "_ZN2ws5drainEi"] {
            assert!(!is_library_function(name), "{name}");
        }
    }
}
