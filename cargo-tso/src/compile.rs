//! Compiling C/C++ to LLVM bitcode with clang-19, and linking several modules with
//! llvm-link-19, behind a content-addressed cache.
//!
//! A compile is keyed by the tool, the arguments, the source path and its content.
//! Its record (`units/<key>`) names the module and every file clang read (from its
//! `-MD` depfile) with a hash of its content, and is valid only while all of them
//! still hash the same. So a changed header recompiles, and an unchanged run
//! recompiles nothing. A compile during which an input changed (an editor saving, two
//! runs writing one file) is used but not recorded: clang may have read a version that
//! no hash taken before or after it describes, and a record of it would hand that
//! module to every later run that sees the recorded contents again.
//!
//! Several runs (parallel tests, parallel `cargo tso` processes) share one cache, so
//! nothing in it is ever written in place or removed: modules are stored once under
//! the hash of their content (`modules/<hash>.bc`), and files appear by an atomic
//! rename of a finished temporary file. A path handed out always names a complete
//! module, whatever other runs do meanwhile; two runs compiling the same unit at
//! once only duplicate work.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

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
        key.update(b"cargo-tso compile v2\0");
        key.update(compiler.as_os_str().as_encoded_bytes());
        for arg in &request.args {
            key.update(b"\0");
            key.update(arg.as_bytes());
        }
        key.update(b"\0source\0");
        key.update(request.source.as_os_str().as_encoded_bytes());
        key.update(b"\0");
        key.update(&source_bytes);
        let record = self.dir.join("units").join(hex(&key.finalize()));
        if let Some(module) = self.valid_record(&record) {
            return Ok((module, CacheUse::Cached));
        }
        let work = self.temp_path("unit");
        std::fs::create_dir_all(&work).map_err(io_error(&work))?;
        // The compile's start on the file system's own clock (which can lag the one
        // `SystemTime::now` reads): a marker file's modification time.
        let marker = work.join("started");
        let started = std::fs::write(&marker, b"")
            .and_then(|()| std::fs::metadata(&marker)?.modified())
            .map_err(io_error(&marker))?;
        let result = self.compile_in(request, compiler, &work, &record, &source_bytes, started);
        let _ = std::fs::remove_dir_all(&work);
        result.map(|module| (module, CacheUse::Compiled))
    }

    /// Runs the compiler in the private directory `work`, stores the module and then
    /// the record that points at it.
    fn compile_in(
        &self,
        request: &CompileRequest,
        compiler: &Path,
        work: &Path,
        record: &Path,
        source_bytes: &[u8],
        started: SystemTime,
    ) -> Result<PathBuf, CompileError> {
        let depfile = work.join("deps.d");
        let built = work.join("module.bc");
        let result = Command::new(compiler)
            .args(&request.args)
            .arg("-MD")
            .arg("-MF")
            .arg(&depfile)
            .arg("-o")
            .arg(&built)
            .arg(&request.source)
            .output()
            .map_err(|source| CompileError::Spawn {
                tool: compiler.display().to_string(),
                source,
            })?;
        if !result.status.success() {
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
        let (module, module_hash) = self.store_module(&built)?;
        let source_unchanged = std::fs::read(&request.source).is_ok_and(|now| now == source_bytes);
        if !source_unchanged || inputs.iter().any(|i| changed_since(i, started)) {
            return Ok(module);
        }
        let mut text = format!("module {module_hash}\n");
        for input in &inputs {
            // The source was just read back with the key's bytes: no third read.
            let hash = if *input == request.source {
                hex(&Sha256::digest(source_bytes))
            } else {
                content_hash(input).unwrap_or_else(|| "missing".to_owned())
            };
            let _ = writeln!(text, "{hash} {}", input.display());
        }
        self.publish_file(text.as_bytes(), record)?;
        Ok(module)
    }

    /// The module a record points at, if the record exists, its module is stored and
    /// every input it lists still has the recorded content.
    fn valid_record(&self, record: &Path) -> Option<PathBuf> {
        // Records are replaced by rename, never rewritten: one read sees one version.
        let text = std::fs::read_to_string(record).ok()?;
        let mut lines = text.lines();
        let module_hash = lines.next()?.strip_prefix("module ")?;
        let module = self.module_path(module_hash);
        if !module.is_file() {
            return None;
        }
        let inputs_unchanged = lines.all(|line| match line.split_once(' ') {
            Some((hash, path)) => content_hash(Path::new(path)).as_deref() == Some(hash),
            None => false,
        });
        inputs_unchanged.then_some(module)
    }

    fn module_path(&self, content_hash: &str) -> PathBuf {
        self.dir.join("modules").join(format!("{content_hash}.bc"))
    }

    /// Stores a built module under the hash of its content and returns its path and
    /// hash. A stored module is never changed or removed, so a path handed out stays
    /// valid while other runs compile the same unit.
    fn store_module(&self, built: &Path) -> Result<(PathBuf, String), CompileError> {
        let bytes = std::fs::read(built).map_err(io_error(built))?;
        let module_hash = hex(&Sha256::digest(&bytes));
        let module = self.module_path(&module_hash);
        if !module.is_file() {
            self.publish_file(&bytes, &module)?;
        }
        Ok((module, module_hash))
    }

    /// Writes `bytes` to `path` atomically: a temporary file renamed into place, so
    /// readers see the old file or the whole new one, never a partial one or none.
    fn publish_file(&self, bytes: &[u8], path: &Path) -> Result<(), CompileError> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io_error(parent))?;
        }
        let temp = self.temp_path("publish");
        std::fs::write(&temp, bytes).map_err(io_error(&temp))?;
        std::fs::rename(&temp, path).map_err(|source| {
            let _ = std::fs::remove_file(&temp);
            CompileError::Io {
                path: path.to_path_buf(),
                source,
            }
        })
    }

    /// Links several bitcode files into one module (cached by their content).
    pub fn link(
        &self,
        inputs: &[PathBuf],
        what: &str,
    ) -> Result<(PathBuf, CacheUse), CompileError> {
        let mut key = Sha256::new();
        key.update(b"cargo-tso link v2\0");
        for input in inputs {
            let bytes = std::fs::read(input).map_err(io_error(input))?;
            key.update(Sha256::digest(&bytes));
        }
        // The inputs' contents determine the output: the key names the module itself.
        let output = self
            .dir
            .join("linked")
            .join(format!("{}.bc", hex(&key.finalize())));
        if output.is_file() {
            return Ok((output, CacheUse::Cached));
        }
        let work = self.temp_path("link");
        std::fs::create_dir_all(&work).map_err(io_error(&work))?;
        let result = self.link_in(inputs, what, &work, &output);
        let _ = std::fs::remove_dir_all(&work);
        result.map(|()| (output, CacheUse::Compiled))
    }

    fn link_in(
        &self,
        inputs: &[PathBuf],
        what: &str,
        work: &Path,
        output: &Path,
    ) -> Result<(), CompileError> {
        let built = work.join("module.bc");
        let result = Command::new(&self.toolchain.llvm_link)
            .args(inputs)
            .arg("-o")
            .arg(&built)
            .output()
            .map_err(|source| CompileError::Spawn {
                tool: self.toolchain.llvm_link.display().to_string(),
                source,
            })?;
        if !result.status.success() {
            return Err(CompileError::Link {
                what: what.to_owned(),
                diagnostics: String::from_utf8_lossy(&result.stderr)
                    .trim_end()
                    .to_owned(),
            });
        }
        let bytes = std::fs::read(&built).map_err(io_error(&built))?;
        self.publish_file(&bytes, output)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Whether `path` was written after `started` (a time read off the same file system
/// clock), or cannot be read.
fn changed_since(path: &Path, started: SystemTime) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_or(true, |modified| modified > started)
}

fn content_hash(path: &Path) -> Option<String> {
    std::fs::read(path)
        .ok()
        .map(|bytes| hex(&Sha256::digest(&bytes)))
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

/// Extra clang arguments a source needs: a file that defines SV-COMP
/// `__VERIFIER_atomic_*` functions must keep them as calls (each call is one atomic
/// step for the checker), so optimised builds do not inline functions.
pub fn source_specific_args(source: &Path) -> Vec<String> {
    match std::fs::read(source) {
        Ok(text) if text.windows(18).any(|w| w == b"__VERIFIER_atomic_") => {
            vec!["-fno-inline-functions".to_owned()]
        }
        _ => Vec::new(),
    }
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

    /// A fresh directory under the system temp dir, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
            let dir =
                std::env::temp_dir().join(format!("cargo-tso-{name}-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).expect("creating a scratch directory");
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Many threads compile the same unit into one cache at once, on a cold cache and
    /// after a header change makes the entry stale, and each loads the module it was
    /// given right away: every load must find a complete module with the function.
    /// (Publishing once removed the entry before moving the new one in, so a reader
    /// could find no module at all.)
    #[test]
    fn concurrent_compiles_of_one_unit_always_yield_a_loadable_module() {
        let Ok(toolchain) = Toolchain::locate() else {
            panic!("clang-19 and llvm-link-19 are needed by this test");
        };
        let scratch = Scratch::new("cache-race");
        let source = scratch.0.join("unit.c");
        let header = scratch.0.join("value.h");
        std::fs::write(
            &source,
            "#include \"value.h\"\nint the_entry(void) { return VALUE; }\n",
        )
        .expect("writing the source");
        let cache = Cache::new(scratch.0.join("cache"), toolchain);
        let request = CompileRequest {
            source: source.clone(),
            language: Language::C,
            args: vec![
                "-c".to_owned(),
                "-emit-llvm".to_owned(),
                "-O0".to_owned(),
                format!("-I{}", scratch.0.display()),
            ],
        };
        for round in 0..6 {
            std::fs::write(&header, format!("#define VALUE {round}\n")).expect("writing a header");
            let failures: Vec<String> = std::thread::scope(|scope| {
                let workers: Vec<_> = (0..8)
                    .map(|_| {
                        scope.spawn(|| -> Result<(), String> {
                            for _ in 0..3 {
                                let (path, _) =
                                    cache.compile(&request).map_err(|e| e.to_string())?;
                                let context = inkwell::context::Context::create();
                                let module = tso_engine::parse_module(&context, &path)
                                    .map_err(|e| e.to_string())?;
                                if module.get_function("the_entry").is_none() {
                                    return Err(format!("{}: no the_entry", path.display()));
                                }
                            }
                            Ok(())
                        })
                    })
                    .collect();
                workers
                    .into_iter()
                    .filter_map(|w| match w.join() {
                        Ok(Ok(())) => None,
                        Ok(Err(message)) => Some(message),
                        Err(_) => Some("a worker panicked".to_owned()),
                    })
                    .collect()
            });
            assert!(failures.is_empty(), "round {round}: {failures:?}");
        }
    }

    /// A compile whose source may have changed while clang read it is used but not
    /// recorded; one whose inputs are older than the compile is.
    #[test]
    fn a_compile_is_recorded_only_when_no_input_changed_during_it() {
        let Ok(toolchain) = Toolchain::locate() else {
            panic!("clang-19 and llvm-link-19 are needed by this test");
        };
        let scratch = Scratch::new("cache-settled");
        let source = scratch.0.join("unit.c");
        std::fs::write(&source, "int the_entry(void) { return 1; }\n").expect("writing");
        let cache = Cache::new(scratch.0.join("cache"), toolchain);
        let request = CompileRequest {
            source: source.clone(),
            language: Language::C,
            args: vec!["-c".to_owned(), "-emit-llvm".to_owned(), "-O0".to_owned()],
        };
        let set_modified = |when: SystemTime| {
            std::fs::File::options()
                .write(true)
                .open(&source)
                .and_then(|f| f.set_modified(when))
                .expect("setting the modification time");
        };
        let uses = |n: usize| -> Vec<CacheUse> {
            (0..n)
                .map(|_| cache.compile(&request).expect("compiling").1)
                .collect()
        };
        // Written "during" every compile (a time after its start): never recorded.
        set_modified(SystemTime::now() + std::time::Duration::from_secs(3600));
        assert_eq!(uses(2), vec![CacheUse::Compiled, CacheUse::Compiled]);
        // Settled before the compile: recorded, then found.
        set_modified(SystemTime::now() - std::time::Duration::from_secs(10));
        assert_eq!(uses(2), vec![CacheUse::Compiled, CacheUse::Cached]);
    }

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
