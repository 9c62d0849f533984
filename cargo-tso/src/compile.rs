//! Compiling C/C++ to LLVM bitcode with clang-19, and linking several modules with
//! llvm-link-19, behind a content-addressed cache.
//!
//! A cache entry is keyed by the tool, the arguments, the source path and its
//! content; it records every file clang read (from its `-MD` depfile) with a hash
//! of its content, and is valid only while all of them still hash the same. So a
//! changed header recompiles, and an unchanged run recompiles nothing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};
use test_support::Language;

/// The LLVM 19 tools we run. Never the unversioned `clang`: it is LLVM 14 here.
#[derive(Debug, Clone)]
pub struct Toolchain {
    pub clang: PathBuf,
    pub clangxx: PathBuf,
    pub llvm_link: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("cannot find {tool}: install clang-19 and llvm-19 (apt-get install clang-19 llvm-19), or set {env}")]
    ToolMissing {
        tool: &'static str,
        env: &'static str,
    },
    #[error("cannot run {tool}: {source}")]
    Spawn {
        tool: String,
        source: std::io::Error,
    },
    #[error("could not compile {}:\n{diagnostics}", file.display())]
    Diagnostics { file: PathBuf, diagnostics: String },
    #[error("could not link {what}:\n{diagnostics}")]
    Link { what: String, diagnostics: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> CompileError + '_ {
    move |source| CompileError::Io {
        path: path.to_path_buf(),
        source,
    }
}

impl Toolchain {
    /// Finds clang-19 and llvm-link-19 (overridable with `CARGO_TSO_CLANG`,
    /// `CARGO_TSO_CLANGXX`, `CARGO_TSO_LLVM_LINK`).
    pub fn locate() -> Result<Toolchain, CompileError> {
        let clang = find_tool(
            "CARGO_TSO_CLANG",
            &["/usr/lib/llvm-19/bin/clang", "/usr/bin/clang-19"],
            "clang-19",
        )?;
        let clangxx = find_tool(
            "CARGO_TSO_CLANGXX",
            &["/usr/lib/llvm-19/bin/clang++", "/usr/bin/clang++-19"],
            "clang++-19",
        )?;
        let llvm_link = find_tool(
            "CARGO_TSO_LLVM_LINK",
            &["/usr/lib/llvm-19/bin/llvm-link", "/usr/bin/llvm-link-19"],
            "llvm-link-19",
        )?;
        Ok(Toolchain {
            clang,
            clangxx,
            llvm_link,
        })
    }
}

fn find_tool(
    env: &'static str,
    candidates: &[&str],
    tool: &'static str,
) -> Result<PathBuf, CompileError> {
    if let Some(path) = std::env::var_os(env) {
        return Ok(PathBuf::from(path));
    }
    candidates
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .ok_or(CompileError::ToolMissing { tool, env })
}

/// One translation unit to compile.
#[derive(Debug, Clone)]
pub struct CompileRequest {
    pub source: PathBuf,
    pub language: Language,
    /// Every argument except the input, `-o` and the depfile options.
    pub args: Vec<String>,
}

/// Whether a result came from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheUse {
    Compiled,
    Cached,
}

/// Bitcode cache in a directory (`target/tso/` for `cargo tso test`).
#[derive(Debug)]
pub struct Cache {
    dir: PathBuf,
    toolchain: Toolchain,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Cache {
    pub fn new(dir: PathBuf, toolchain: Toolchain) -> Cache {
        Cache { dir, toolchain }
    }

    /// Writes `tso.h` into `<cache>/include` (when changed) and returns that directory.
    pub fn include_dir(&self) -> Result<PathBuf, CompileError> {
        let dir = self.dir.join("include");
        std::fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        let header = dir.join("tso.h");
        if std::fs::read_to_string(&header).ok().as_deref() != Some(test_support::TSO_H) {
            let temp = self.temp_path("tso.h");
            std::fs::write(&temp, test_support::TSO_H).map_err(io_error(&temp))?;
            std::fs::rename(&temp, &header).map_err(io_error(&header))?;
        }
        Ok(dir)
    }

    fn temp_path(&self, name: &str) -> PathBuf {
        let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = self.dir.join("tmp");
        let _ = std::fs::create_dir_all(&dir);
        dir.join(format!("{}-{n}-{name}", std::process::id()))
    }

    /// Compiles `request` to bitcode, or finds it in the cache.
    pub fn compile(&self, request: &CompileRequest) -> Result<(PathBuf, CacheUse), CompileError> {
        let source_bytes = std::fs::read(&request.source).map_err(io_error(&request.source))?;
        let compiler = match request.language {
            Language::C => &self.toolchain.clang,
            Language::Cxx => &self.toolchain.clangxx,
        };
        let mut key = Sha256::new();
        key.update(b"cargo-tso compile v1\0");
        key.update(compiler.as_os_str().as_encoded_bytes());
        for arg in &request.args {
            key.update(b"\0");
            key.update(arg.as_bytes());
        }
        key.update(b"\0source\0");
        key.update(request.source.as_os_str().as_encoded_bytes());
        key.update(b"\0");
        key.update(&source_bytes);
        let entry = self.dir.join("bc").join(hex(&key.finalize()));
        let output = entry.join("module.bc");
        if entry_is_valid(&entry) {
            return Ok((output, CacheUse::Cached));
        }
        let work = self.temp_path("unit");
        std::fs::create_dir_all(&work).map_err(io_error(&work))?;
        let depfile = work.join("deps.d");
        let result = Command::new(compiler)
            .args(&request.args)
            .arg("-MD")
            .arg("-MF")
            .arg(&depfile)
            .arg("-o")
            .arg(work.join("module.bc"))
            .arg(&request.source)
            .output()
            .map_err(|source| CompileError::Spawn {
                tool: compiler.display().to_string(),
                source,
            })?;
        if !result.status.success() {
            let _ = std::fs::remove_dir_all(&work);
            return Err(CompileError::Diagnostics {
                file: request.source.clone(),
                diagnostics: String::from_utf8_lossy(&result.stderr)
                    .trim_end()
                    .to_owned(),
            });
        }
        let depfile_text = std::fs::read_to_string(&depfile).unwrap_or_default();
        let mut inputs = parse_depfile(&depfile_text);
        if !inputs.contains(&request.source) {
            inputs.push(request.source.clone());
        }
        write_inputs(&work.join("inputs"), &inputs)?;
        publish(&work, &entry)?;
        Ok((output, CacheUse::Compiled))
    }

    /// Links several bitcode files into one module (cached by their content).
    pub fn link(
        &self,
        inputs: &[PathBuf],
        what: &str,
    ) -> Result<(PathBuf, CacheUse), CompileError> {
        let mut key = Sha256::new();
        key.update(b"cargo-tso link v1\0");
        for input in inputs {
            let bytes = std::fs::read(input).map_err(io_error(input))?;
            key.update(Sha256::digest(&bytes));
        }
        let entry = self.dir.join("linked").join(hex(&key.finalize()));
        let output = entry.join("module.bc");
        if output.is_file() {
            return Ok((output, CacheUse::Cached));
        }
        let work = self.temp_path("link");
        std::fs::create_dir_all(&work).map_err(io_error(&work))?;
        let result = Command::new(&self.toolchain.llvm_link)
            .args(inputs)
            .arg("-o")
            .arg(work.join("module.bc"))
            .output()
            .map_err(|source| CompileError::Spawn {
                tool: self.toolchain.llvm_link.display().to_string(),
                source,
            })?;
        if !result.status.success() {
            let _ = std::fs::remove_dir_all(&work);
            return Err(CompileError::Link {
                what: what.to_owned(),
                diagnostics: String::from_utf8_lossy(&result.stderr)
                    .trim_end()
                    .to_owned(),
            });
        }
        publish(&work, &entry)?;
        Ok((output, CacheUse::Compiled))
    }
}

/// Moves a finished work directory into place; a concurrent run may have won.
fn publish(work: &Path, entry: &Path) -> Result<(), CompileError> {
    if let Some(parent) = entry.parent() {
        std::fs::create_dir_all(parent).map_err(io_error(parent))?;
    }
    if entry.exists() {
        let _ = std::fs::remove_dir_all(entry);
    }
    if std::fs::rename(work, entry).is_err() {
        let _ = std::fs::remove_dir_all(work);
        if !entry.join("module.bc").is_file() {
            return Err(CompileError::Io {
                path: entry.to_path_buf(),
                source: std::io::Error::other("cannot store the compiled module"),
            });
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

fn content_hash(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|bytes| hex(&Sha256::digest(&bytes)))
}

/// `inputs`: one line per input file, `<sha256> <path>`.
fn write_inputs(file: &Path, inputs: &[PathBuf]) -> Result<(), CompileError> {
    let mut text = String::new();
    for input in inputs {
        let hash = content_hash(input).unwrap_or_else(|| "missing".to_owned());
        let _ = writeln!(text, "{hash} {}", input.display());
    }
    std::fs::write(file, text).map_err(io_error(file))
}

fn entry_is_valid(entry: &Path) -> bool {
    if !entry.join("module.bc").is_file() {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(entry.join("inputs")) else {
        return false;
    };
    text.lines().all(|line| match line.split_once(' ') {
        Some((hash, path)) => content_hash(Path::new(path)).as_deref() == Some(hash),
        None => false,
    })
}

/// The prerequisites of a make-style depfile (`out: a.c b.h \` ...), with `\ ` escapes.
fn parse_depfile(text: &str) -> Vec<PathBuf> {
    let body = text.split_once(": ").map_or("", |(_, rest)| rest);
    let mut paths = Vec::new();
    let mut current = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some(' ') | Some('#') => {
                    current.extend(chars.next());
                }
                Some('\n') | Some('\r') => {
                    chars.next();
                }
                _ => current.push('\\'),
            },
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                current.push('$');
            }
            c if c.is_whitespace() => {
                if !current.is_empty() {
                    paths.push(PathBuf::from(std::mem::take(&mut current)));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        paths.push(PathBuf::from(current));
    }
    paths
}

/// The clang arguments shared by every compile: bitcode with debug info.
pub fn base_args(language: Language, opt_level: &str, include_dir: &Path) -> Vec<String> {
    let mut args = vec![
        "-c".to_owned(),
        "-emit-llvm".to_owned(),
        "-g".to_owned(),
        format!("-O{opt_level}"),
    ];
    if language == Language::Cxx {
        args.push("-fno-exceptions".to_owned());
    }
    args.push(format!("-I{}", include_dir.display()));
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depfile_with_continuations_and_escaped_spaces() {
        let text = "out.bc: /a/x.c /a/my\\ dir/y.h \\\n  /usr/include/stdio.h\n";
        let paths = parse_depfile(text);
        assert_eq!(
            paths,
            vec![
                PathBuf::from("/a/x.c"),
                PathBuf::from("/a/my dir/y.h"),
                PathBuf::from("/usr/include/stdio.h")
            ]
        );
    }
}
