//! The engine's modules in layers, from the IR up to the search, and the rule that
//! keeps them so: no module names (`use crate::…` or an inline `crate::x::` path) a
//! module of a layer above its own. Modules of one layer may use each other.
//!
//! `LAYERS` is the one place the order is written down; ARCHITECTURE.md ("Layers")
//! explains it. Where a lower layer must tell a higher one something, it calls a hook
//! the higher one implements (`hooks::TransitionHook`: the machine reports what a
//! transition touches, the search records it) or the higher one registers itself
//! (`models::standard` fills the natives table with the library models).

use std::collections::HashMap;
use std::path::Path;

/// Bottom to top: (layer name, its top-level modules of `tso-engine/src`).
const LAYERS: &[(&str, &[&str])] = &[
    (
        "foundations",
        &["error", "value", "wide", "bytes", "resources"],
    ),
    ("ir", &["ir"]),
    ("memory", &["memory", "hooks", "definedness"]),
    ("race data", &["race"]),
    ("state", &["state"]),
    ("store", &["store"]),
    ("loader", &["loader"]),
    ("natives API", &["natives"]),
    ("models", &["libc", "pthread", "cxx", "models"]),
    ("machine", &["interp"]),
    ("search", &["explore"]),
    ("entry", &["check", "undefined"]),
];

/// The layer of each module, by index into `LAYERS`.
fn layer_of() -> HashMap<&'static str, usize> {
    let mut m = HashMap::new();
    for (i, (_, mods)) in LAYERS.iter().enumerate() {
        for &module in *mods {
            assert!(m.insert(module, i).is_none(), "`{module}` is in two layers");
        }
    }
    m
}

/// `src` with comments, string and character literals blanked out (newlines kept, so
/// line numbers stay right).
fn code_only(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if c[i] == 'r'
            && (next == Some('"') || next == Some('#'))
            && !ident_char_before(&c, i)
        {
            // A raw string: r"…" or r#"…"#.
            let mut j = i + 1;
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            let mut k = j + 1;
            while k < c.len()
                && !(c[k] == '"' && (0..hashes).all(|h| c.get(k + 1 + h) == Some(&'#')))
            {
                k += 1;
            }
            let end = (k + 1 + hashes).min(c.len());
            for &ch in &c[i..end] {
                blank(&mut out, ch);
            }
            i = end;
        } else if c[i] == '"' {
            blank(&mut out, c[i]);
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            if i < c.len() {
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{..}'), or else a lifetime.
            let end = if next == Some('\\') {
                (i + 2..c.len()).find(|&k| c[k] == '\'').map(|k| k + 1)
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    for &ch in &c[i..end] {
                        blank(&mut out, ch);
                    }
                    i = end;
                }
                None => {
                    out.push(c[i]);
                    i += 1;
                }
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn ident_char_before(c: &[char], i: usize) -> bool {
    i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_' || c[i - 1] == '$')
}

/// Every top-level module a source names through `crate::`, with its line: the first
/// segment of `crate::x…` and of each top-level entry of `crate::{x…, y…}`.
fn crate_paths(src: &str) -> Vec<(usize, String)> {
    let code: Vec<char> = code_only(src).chars().collect();
    let line_at = |i: usize| code[..i].iter().filter(|&&ch| ch == '\n').count() + 1;
    let ident_at = |mut i: usize| {
        while i < code.len() && code[i].is_whitespace() {
            i += 1;
        }
        let start = i;
        while i < code.len() && (code[i].is_alphanumeric() || code[i] == '_') {
            i += 1;
        }
        code[start..i].iter().collect::<String>()
    };
    let mut found = Vec::new();
    let mut i = 0;
    while i + 7 <= code.len() {
        let word = code[i..i + 5].iter().collect::<String>();
        if word != "crate" || ident_char_before(&code, i) {
            i += 1;
            continue;
        }
        let mut j = i + 5;
        while j < code.len() && code[j].is_whitespace() {
            j += 1;
        }
        if code.get(j) != Some(&':') || code.get(j + 1) != Some(&':') {
            i += 5;
            continue;
        }
        j += 2;
        while j < code.len() && code[j].is_whitespace() {
            j += 1;
        }
        if code.get(j) == Some(&'{') {
            // The top-level entries of the group: the first identifier after `{` and
            // after each comma at depth one.
            let mut depth = 0;
            let mut k = j;
            let mut entry_start = true;
            while k < code.len() {
                match code[k] {
                    '{' => {
                        depth += 1;
                        if depth == 1 {
                            entry_start = true;
                        }
                    }
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => entry_start = true,
                    ch if entry_start && depth == 1 && !ch.is_whitespace() => {
                        let name = ident_at(k);
                        if !name.is_empty() {
                            found.push((line_at(k), name));
                        }
                        entry_start = false;
                    }
                    _ => {}
                }
                k += 1;
            }
            i = k;
        } else {
            let name = ident_at(j);
            if !name.is_empty() {
                found.push((line_at(i), name));
            }
            i = j;
        }
    }
    found
}

/// Names the crate root re-exports (`pub use module::{A, B};`), by the module they
/// come from.
fn root_reexports(lib: &str) -> HashMap<String, String> {
    let mut m = HashMap::new();
    let code = code_only(lib);
    for stmt in code.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = rest.split_once("::") else {
            continue;
        };
        let names = names.trim().trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',') {
            let name = name.split(" as ").last().unwrap_or("").trim();
            let name = name.rsplit("::").next().unwrap_or(name);
            if !name.is_empty() {
                m.insert(name.to_string(), module.trim().to_string());
            }
        }
    }
    m
}

/// The top-level module a file under `src/` belongs to (None for the crate root).
fn module_of(rel: &str) -> Option<&str> {
    let first = rel.split('/').next()?;
    let module = first.strip_suffix(".rs").unwrap_or(first);
    (module != "lib").then_some(module)
}

/// The rule broken in one file: one message per path that names a module of a higher
/// layer (or a module no layer lists).
fn violations(rel: &str, src: &str, reexports: &HashMap<String, String>) -> Vec<String> {
    let layers = layer_of();
    let Some(from) = module_of(rel) else {
        return Vec::new();
    };
    let Some(&from_layer) = layers.get(from) else {
        return vec![format!(
            "src/{rel}: module `{from}` is in no layer (tests/layers.rs LAYERS)"
        )];
    };
    let mut out = Vec::new();
    for (line, name) in crate_paths(src) {
        let target = match layers.get(name.as_str()) {
            Some(_) => name.clone(),
            None => match reexports.get(&name) {
                Some(m) => m.clone(),
                None => {
                    out.push(format!(
                        "src/{rel}:{line}: `crate::{name}` is no module of a layer"
                    ));
                    continue;
                }
            },
        };
        let Some(&to_layer) = layers.get(target.as_str()) else {
            out.push(format!(
                "src/{rel}:{line}: `crate::{name}` comes from `{target}`, in no layer"
            ));
            continue;
        };
        if to_layer > from_layer {
            out.push(format!(
                "src/{rel}:{line}: `{from}` (layer {}, {}) uses `crate::{name}` (`{target}`: layer {}, {}), a layer above it",
                from_layer, LAYERS[from_layer].0, to_layer, LAYERS[to_layer].0
            ));
        }
    }
    out
}

fn sources(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            sources(&p, root, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

#[test]
fn no_module_uses_a_layer_above_its_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    let lib = &files
        .iter()
        .find(|(rel, _)| rel == "lib.rs")
        .expect("src/lib.rs")
        .1;
    let reexports = root_reexports(lib);
    let mut broken = Vec::new();
    for (rel, src) in &files {
        broken.extend(violations(rel, src, &reexports));
    }
    assert!(broken.is_empty(), "upward imports:\n{}", broken.join("\n"));
}

#[test]
fn every_module_of_the_crate_root_has_a_layer() {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let layers = layer_of();
    let code = code_only(&lib);
    let declared: Vec<&str> = code
        .split(';')
        .filter_map(|s| s.trim().rsplit_once("mod ").map(|(_, name)| name.trim()))
        .filter(|name| !name.contains(char::is_whitespace) && !name.is_empty())
        .collect();
    assert!(
        declared.len() > 10,
        "read the modules of lib.rs: {declared:?}"
    );
    for name in declared {
        assert!(
            layers.contains_key(name),
            "module `{name}` is in no layer (tests/layers.rs LAYERS)"
        );
    }
}

#[test]
fn a_planted_upward_import_is_named_with_its_file_line_and_layers() {
    let reexports = HashMap::from([("ErrorKind".to_string(), "error".to_string())]);
    let src = "//! Memory.\nuse crate::error::Failure;\nuse crate::explore::footprint;\n";
    assert_eq!(
        violations("memory/mod.rs", src, &reexports),
        ["src/memory/mod.rs:3: `memory` (layer 2, memory) uses `crate::explore` (`explore`: layer 10, search), a layer above it"]
    );
}

#[test]
fn grouped_and_inline_paths_are_read_and_comments_and_strings_are_not() {
    let reexports = HashMap::from([("Natives".to_string(), "natives".to_string())]);
    let src = "use crate::{\n    ir::Program,\n    interp::{Machine, short},\n};\n\
               // crate::explore::x in a comment\n\
               /* crate::check /* nested */ crate::explore */\n\
               fn f() { let s = \"crate::explore::y\"; let c = '\"'; let n = crate::Natives::new(); }\n\
               fn g<'a>(x: &'a u8) -> u32 { crate::store::hash(x) }\n";
    let v = violations("state/mod.rs", src, &reexports);
    assert_eq!(v.len(), 3, "{v:#?}");
    assert!(v[0].starts_with("src/state/mod.rs:3: `state`") && v[0].contains("`crate::interp`"));
    assert!(
        v[1].starts_with("src/state/mod.rs:7:")
            && v[1].contains("(`natives`: layer 7, natives API)")
    );
    assert!(v[2].starts_with("src/state/mod.rs:8:") && v[2].contains("`crate::store`"));
    // Paths that go down or stay in the layer are allowed.
    assert!(violations("explore/dfs.rs", src, &reexports).is_empty());
}
