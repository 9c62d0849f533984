//! The build-script API: declare test files and how to compile them, then write the
//! manifest. Nothing is compiled here, so a plain `cargo build` stays as fast as
//! before and needs no clang.

use std::borrow::Borrow;
use std::path::{Path, PathBuf};

use crate::compile_flags::{absolute, CompileSettings};
use crate::manifest::{Define, Language, Manifest, TestFile, MANIFEST_FILE_NAME};
use crate::{include_dir, Error};

/// Compile settings one can give for all tests of a [`Tests`] or for one file.
#[derive(Debug, Clone, Default)]
pub struct FileOptions {
    std: Option<String>,
    language: Option<Language>,
    include_dirs: Vec<PathBuf>,
    defines: Vec<Define>,
    flags: Vec<String>,
    sources: Vec<PathBuf>,
    budget: crate::Budget,
    memory_models: Vec<crate::MemoryModel>,
}

impl FileOptions {
    /// The memory models the tests run under, each once, in this order (a test run
    /// under more than one is named `name [model]` for each). Without it, tests run
    /// under `cargo tso test --memory-model` (default `tso`); with it, that flag runs
    /// only the runs under its model. A file's own list replaces its group's.
    pub fn memory_models(
        &mut self,
        models: impl IntoIterator<Item = crate::MemoryModel>,
    ) -> &mut Self {
        self.memory_models.clear();
        for model in models {
            if !self.memory_models.contains(&model) {
                self.memory_models.push(model);
            }
        }
        self
    }

    /// Wall time for all of a test's searches (the TSO search, the race search, the
    /// SC re-run, the fence search); past it the test is inconclusive.
    pub fn timeout(&mut self, timeout: std::time::Duration) -> &mut Self {
        self.budget.timeout_ms = Some(timeout.as_millis().try_into().unwrap_or(u64::MAX));
        self
    }

    /// States one search of a test may store; past it the test is inconclusive.
    pub fn max_states(&mut self, states: u64) -> &mut Self {
        self.budget.max_states = Some(states);
        self
    }

    /// Heap a test's exploration may hold, in bytes; past it the test is inconclusive.
    pub fn max_memory(&mut self, bytes: u64) -> &mut Self {
        self.budget.max_memory = Some(bytes);
        self
    }

    /// The store-buffer bound to check at (0 = unbounded).
    pub fn sb_bound(&mut self, bound: u32) -> &mut Self {
        self.budget.sb_bound = Some(bound);
        self
    }

    /// A test that a budget stops is reported as inconclusive but does not fail the
    /// run (by default it does: a cut search is not a pass).
    pub fn allow_inconclusive(&mut self) -> &mut Self {
        self.budget.allow_inconclusive = Some(true);
        self
    }

    /// Adds an include directory (relative paths are relative to the package).
    pub fn include(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.include_dirs.push(dir.as_ref().to_path_buf());
        self
    }

    /// Adds `-DNAME` (value `None`) or `-DNAME=VALUE`.
    pub fn define<'a>(&mut self, name: &str, value: impl Into<Option<&'a str>>) -> &mut Self {
        self.defines.push(Define::new(name, value.into()));
        self
    }

    /// Adds a compiler flag, e.g. `-fno-exceptions`. Use [`FileOptions::std`],
    /// [`FileOptions::include`] and [`FileOptions::define`] for those settings.
    pub fn flag(&mut self, flag: &str) -> &mut Self {
        self.flags.push(flag.to_owned());
        self
    }

    /// Sets the language standard, without `-std=`: `"c11"`, `"c++17"`.
    pub fn std(&mut self, std: &str) -> &mut Self {
        self.std = Some(std.to_owned());
        self
    }

    /// Overrides the language that the file extension implies.
    pub fn language(&mut self, language: Language) -> &mut Self {
        self.language = Some(language);
        self
    }

    /// Adds a further translation unit (e.g. the library's own `.c` file) to compile
    /// with the same settings and link with the test.
    pub fn source(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.sources.push(path.as_ref().to_path_buf());
        self
    }
}

/// One declared test file.
#[derive(Debug, Clone)]
struct FileDeclaration {
    path: PathBuf,
    options: FileOptions,
}

/// A set of C/C++ test files for `cargo tso test`, declared in `build.rs`.
///
/// Settings combine in this order, later ones adding to (for `-D` and flags:
/// overriding) earlier ones: the `cc::Build` given to [`Tests::cc_build`], the
/// settings on `Tests`, the per-file settings of [`Tests::file_with`]. The standard
/// is the most specific one given; one inherited from cc is dropped for files of
/// the other language (a `c11` build does not apply to `.cpp` tests). Every file
/// also gets test-support's include directory, for `#include <tso.h>`.
///
/// # Example
///
/// A `build.rs` that compiles a C library and declares its tests with the same
/// compiler settings:
///
/// ```no_run
/// // build.rs
/// fn main() {
///     let mut lib = cc::Build::new();
///     lib.file("csrc/ring.c").include("csrc").std("c11").define("RING_DEBUG", None);
///     lib.compile("ring");
///     println!("cargo:rerun-if-changed=csrc");
///
///     test_support::Tests::new()
///         .cc_build(&lib)
///         .source("csrc/ring.c")
///         .dir("tso-tests")
///         .file_with("tso-tests/extra/big.c", |f| {
///             f.define("ITEMS", "4");
///         })
///         .emit()
///         .expect("writing the TSO test manifest");
/// }
/// ```
///
/// The manifest can also be built without cargo's environment:
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("tso-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// # std::fs::write(dir.join("order.c"), "").unwrap();
/// use test_support::{Language, Tests};
///
/// let manifest = Tests::new()
///     .file("order.c")
///     .define("CAPACITY", "2")
///     .flag("-fno-strict-aliasing")
///     .to_manifest("demo", &dir)?;
/// let test = &manifest.tests[0];
/// assert_eq!(test.path, dir.join("order.c"));
/// assert_eq!(test.language, Language::C);
/// assert_eq!(test.defines[0].value.as_deref(), Some("2"));
/// assert_eq!(test.include_dirs.last(), Some(&test_support::include_dir()));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), test_support::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Tests {
    cc_build: Option<cc::Build>,
    races: Option<crate::Races>,
    options: FileOptions,
    files: Vec<FileDeclaration>,
    dirs: Vec<PathBuf>,
}

impl Tests {
    pub fn new() -> Tests {
        Tests::default()
    }

    /// Compiles the tests like this `cc::Build` compiles the library: its standard,
    /// include directories, defines, flags and optimisation level (from
    /// `cc::Build::try_get_compiler`, which includes `CFLAGS`/`CXXFLAGS` and cargo's
    /// `OPT_LEVEL`), minus debug and warning flags.
    /// The build is read when the manifest is made, so this may come before or
    /// after configuring it further.
    pub fn cc_build(&mut self, build: &cc::Build) -> &mut Self {
        self.cc_build = Some(build.clone());
        self
    }

    /// What a data race does to these tests, unless `cargo tso test --races` says
    /// otherwise: `Races::Warn` (the default) reports it beside the verdict,
    /// `Races::Deny` fails the test, `Races::Allow` does not look for races. Keep a
    /// crate that races on purpose (a Dekker lock with plain flags) at `Warn` and say
    /// why in a comment.
    pub fn races(&mut self, races: crate::Races) -> &mut Self {
        self.races = Some(races);
        self
    }

    /// Declares one test file (relative paths are relative to the package).
    pub fn file(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.file_with(path, |_| {})
    }

    /// Declares one test file with settings of its own.
    pub fn file_with(
        &mut self,
        path: impl AsRef<Path>,
        configure: impl FnOnce(&mut FileOptions),
    ) -> &mut Self {
        let mut options = FileOptions::default();
        configure(&mut options);
        self.files.push(FileDeclaration {
            path: path.as_ref().to_path_buf(),
            options,
        });
        self
    }

    /// Declares every C/C++ file directly inside `dir` (by extension, sorted by
    /// name), looked up when the manifest is made. Adding a file there re-runs
    /// the build script.
    pub fn dir(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.dirs.push(dir.as_ref().to_path_buf());
        self
    }

    /// See [`FileOptions::include`]; applies to every file.
    pub fn include(&mut self, dir: impl AsRef<Path>) -> &mut Self {
        self.options.include(dir);
        self
    }

    /// See [`FileOptions::define`]; applies to every file.
    pub fn define<'a>(&mut self, name: &str, value: impl Into<Option<&'a str>>) -> &mut Self {
        self.options.define(name, value);
        self
    }

    /// See [`FileOptions::flag`]; applies to every file.
    pub fn flag(&mut self, flag: &str) -> &mut Self {
        self.options.flag(flag);
        self
    }

    /// See [`FileOptions::std`]; applies to every file.
    pub fn std(&mut self, std: &str) -> &mut Self {
        self.options.std(std);
        self
    }

    /// See [`FileOptions::language`]; applies to every file.
    pub fn language(&mut self, language: Language) -> &mut Self {
        self.options.language(language);
        self
    }

    /// See [`FileOptions::timeout`]; for every test of this group (a file's own wins).
    pub fn timeout(&mut self, timeout: std::time::Duration) -> &mut Self {
        self.options.timeout(timeout);
        self
    }

    /// See [`FileOptions::max_states`]; for every test of this group.
    pub fn max_states(&mut self, states: u64) -> &mut Self {
        self.options.max_states(states);
        self
    }

    /// See [`FileOptions::max_memory`]; for every test of this group.
    pub fn max_memory(&mut self, bytes: u64) -> &mut Self {
        self.options.max_memory(bytes);
        self
    }

    /// See [`FileOptions::sb_bound`]; for every test of this group.
    pub fn sb_bound(&mut self, bound: u32) -> &mut Self {
        self.options.sb_bound(bound);
        self
    }

    /// See [`FileOptions::memory_models`]; for every test of this group (a file's own
    /// list wins).
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("tso-doc-models-{}", std::process::id()));
    /// # std::fs::create_dir_all(&dir).unwrap();
    /// # std::fs::write(dir.join("handoff.c"), "").unwrap();
    /// use test_support::{MemoryModel, Tests};
    ///
    /// let manifest = Tests::new()
    ///     .memory_models([MemoryModel::Tso, MemoryModel::C11])
    ///     .file("handoff.c")
    ///     .to_manifest("demo", &dir)?;
    /// assert_eq!(manifest.tests[0].memory_models, [MemoryModel::Tso, MemoryModel::C11]);
    /// # std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), test_support::Error>(())
    /// ```
    pub fn memory_models(
        &mut self,
        models: impl IntoIterator<Item = crate::MemoryModel>,
    ) -> &mut Self {
        self.options.memory_models(models);
        self
    }

    /// See [`FileOptions::allow_inconclusive`]; for every test of this group.
    pub fn allow_inconclusive(&mut self) -> &mut Self {
        self.options.allow_inconclusive();
        self
    }

    /// See [`FileOptions::source`]; linked with every test file.
    pub fn source(&mut self, path: impl AsRef<Path>) -> &mut Self {
        self.options.source(path);
        self
    }

    /// Writes `$OUT_DIR/tso-tests.json` and prints `cargo:rerun-if-changed` for
    /// the declared files and directories. Call from `build.rs`.
    ///
    /// As with any `rerun-if-changed`, cargo then stops re-running the build script
    /// on every change in the package: also emit it for the library's own sources
    /// (the `cc` crate does not).
    pub fn emit(&self) -> Result<PathBuf, Error> {
        emit_all([self])
    }

    /// The manifest for package `package` in directory `manifest_dir`, without
    /// writing anything.
    pub fn to_manifest(&self, package: &str, manifest_dir: &Path) -> Result<Manifest, Error> {
        manifest_of([self], package, manifest_dir)
    }

    /// Test files in declaration order (directories expanded), absolute.
    fn declared_files(&self, base: &Path) -> Result<Vec<FileDeclaration>, Error> {
        let mut files = Vec::new();
        for dir in &self.dirs {
            let dir = absolute(base, dir);
            for path in list_sources(&dir)? {
                files.push(FileDeclaration {
                    path,
                    options: FileOptions::default(),
                });
            }
        }
        for file in &self.files {
            files.push(FileDeclaration {
                path: absolute(base, &file.path),
                options: file.options.clone(),
            });
        }
        Ok(files)
    }

    /// Paths whose change must re-run the build script.
    fn watched_paths(&self, base: &Path, manifest: &Manifest) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = self.dirs.iter().map(|d| absolute(base, d)).collect();
        for test in &manifest.tests {
            paths.push(test.path.clone());
            paths.extend(test.sources.iter().cloned());
        }
        paths
    }
}

/// Writes one manifest covering several [`Tests`] (e.g. C tests compiled like one
/// `cc::Build` and C++ tests like another), like [`Tests::emit`]. A group's
/// [`Tests::source`] is linked into that group's files only: the way to link a library
/// source into some tests and not others (a group per directory, like Cargo's
/// separate integration-test targets).
///
/// ```no_run
/// use test_support::{emit_all, Tests};
/// emit_all([
///     Tests::new().source("csrc/queue.c").dir("tso-tests/queue"),
///     Tests::new().source("csrc/stack.c").dir("tso-tests/stack"),
/// ])?;
/// # Ok::<(), test_support::Error>(())
/// ```
pub fn emit_all<T: Borrow<Tests>>(groups: impl IntoIterator<Item = T>) -> Result<PathBuf, Error> {
    let groups: Vec<T> = groups.into_iter().collect();
    let groups: Vec<&Tests> = groups.iter().map(Borrow::borrow).collect();
    let package = env_var("CARGO_PKG_NAME")?;
    let manifest_dir = PathBuf::from(env_var("CARGO_MANIFEST_DIR")?);
    let out_dir = PathBuf::from(env_var("OUT_DIR")?);
    let manifest = manifest_of(groups.iter().copied(), &package, &manifest_dir)?;
    let mut watched: Vec<PathBuf> = groups
        .iter()
        .flat_map(|g| g.watched_paths(&manifest_dir, &manifest))
        .collect();
    watched.sort();
    watched.dedup();
    for path in watched {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let path = out_dir.join(MANIFEST_FILE_NAME);
    manifest.write(&path)?;
    Ok(path)
}

fn manifest_of<'a>(
    groups: impl IntoIterator<Item = &'a Tests>,
    package: &str,
    manifest_dir: &Path,
) -> Result<Manifest, Error> {
    let mut compiler = None;
    let mut tests = Vec::new();
    for group in groups {
        let inherited = match &group.cc_build {
            Some(build) => {
                let tool = build.try_get_compiler()?;
                compiler.get_or_insert_with(|| tool.path().to_path_buf());
                CompileSettings::from_args(tool.args(), manifest_dir)?
            }
            None => CompileSettings::default(),
        };
        for file in group.declared_files(manifest_dir)? {
            let mut test = resolve(&inherited, &group.options, &file, manifest_dir)?;
            test.races = group.races;
            tests.push(test);
        }
    }
    check_distinct_stems(&tests, package)?;
    Ok(Manifest {
        format_version: Manifest::version_needed(&tests),
        package: package.to_owned(),
        manifest_dir: manifest_dir.to_path_buf(),
        compiler,
        tests,
    })
}

/// A test's name is `<package>::<file stem>::<test>`: files in different directories
/// or groups (one per set of linked sources) must still differ in stem.
fn check_distinct_stems(tests: &[TestFile], package: &str) -> Result<(), Error> {
    let mut seen: std::collections::HashMap<&std::ffi::OsStr, &Path> = Default::default();
    for test in tests {
        let Some(stem) = test.path.file_stem() else {
            continue;
        };
        if let Some(first) = seen.insert(stem, &test.path) {
            return Err(Error::DuplicateStem {
                package: package.to_owned(),
                stem: stem.to_string_lossy().into_owned(),
                first: first.to_path_buf(),
                second: test.path.clone(),
            });
        }
    }
    Ok(())
}

/// Combines the three layers of settings for one file.
fn resolve(
    inherited: &CompileSettings,
    shared: &FileOptions,
    file: &FileDeclaration,
    base: &Path,
) -> Result<TestFile, Error> {
    let own = &file.options;
    let (own_budget, shared_budget) = (own.budget, shared.budget);
    let memory_models = match own.memory_models.is_empty() {
        true => shared.memory_models.clone(),
        false => own.memory_models.clone(),
    };
    let language = own
        .language
        .or(shared.language)
        .or_else(|| Language::from_path(&file.path))
        .ok_or_else(|| Error::UnknownLanguage(file.path.clone()))?;
    let path = existing_file(file.path.clone())?;
    let shared = explicit_settings(shared, base)?;
    let own = explicit_settings(own, base)?;

    let std = own
        .std
        .clone()
        .or_else(|| shared.std.clone())
        .or_else(|| inherited.std.clone().filter(|s| language.accepts_std(s)));
    let layers = [inherited, &shared.settings, &own.settings];
    let mut include_dirs: Vec<PathBuf> = layers
        .iter()
        .flat_map(|l| l.include_dirs.iter().cloned())
        .chain([include_dir()])
        .collect();
    let mut seen = std::collections::HashSet::new();
    include_dirs.retain(|dir| seen.insert(dir.clone()));
    let defines = layers
        .iter()
        .flat_map(|l| l.defines.iter().cloned())
        .collect();
    let flags = layers
        .iter()
        .flat_map(|l| l.flags.iter().cloned())
        .collect();
    let opt_level = layers.iter().rev().find_map(|l| l.opt_level.clone());
    let sources = shared
        .sources
        .into_iter()
        .chain(own.sources)
        .map(existing_file)
        .collect::<Result<_, _>>()?;
    Ok(TestFile {
        path,
        language,
        std,
        include_dirs,
        defines,
        flags,
        sources,
        opt_level,
        races: None,
        budget: own_budget.or(shared_budget),
        memory_models,
    })
}

/// The settings of one layer given through the API, with paths made absolute.
struct ExplicitSettings {
    settings: CompileSettings,
    std: Option<String>,
    sources: Vec<PathBuf>,
}

fn explicit_settings(options: &FileOptions, base: &Path) -> Result<ExplicitSettings, Error> {
    // Flags go through the same filter as cc's, so `-I`/`-D`/`-std=` written as
    // flags still land in their own fields.
    let flags: Vec<std::ffi::OsString> = options.flags.iter().map(Into::into).collect();
    let from_flags = CompileSettings::from_args(&flags, base)?;
    let mut include_dirs: Vec<PathBuf> = options
        .include_dirs
        .iter()
        .map(|d| absolute(base, d))
        .collect();
    include_dirs.extend(from_flags.include_dirs);
    let mut defines = options.defines.clone();
    defines.extend(from_flags.defines);
    Ok(ExplicitSettings {
        std: options.std.clone().or(from_flags.std),
        settings: CompileSettings {
            std: None,
            include_dirs,
            defines,
            flags: from_flags.flags,
            opt_level: from_flags.opt_level,
        },
        sources: options.sources.iter().map(|s| absolute(base, s)).collect(),
    })
}

fn existing_file(path: PathBuf) -> Result<PathBuf, Error> {
    if path.is_file() {
        Ok(path)
    } else {
        Err(Error::MissingFile(path))
    }
}

/// C and C++ files directly inside `dir`, sorted.
fn list_sources(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let list_error = |source| Error::ListDir {
        path: dir.to_path_buf(),
        source,
    };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(list_error)? {
        let path = entry.map_err(list_error)?.path();
        if path.is_file() && Language::from_path(&path).is_some() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

fn env_var(name: &'static str) -> Result<String, Error> {
    std::env::var(name).map_err(|_| Error::MissingEnv(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch package directory with the given (empty) files.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(tag: &str, files: &[&str]) -> Scratch {
            let dir = std::env::temp_dir().join(format!("tso-decl-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            for file in files {
                let path = dir.join(file);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, "").unwrap();
            }
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn host_build() -> cc::Build {
        let mut build = cc::Build::new();
        build
            .target("x86_64-unknown-linux-gnu")
            .host("x86_64-unknown-linux-gnu")
            .opt_level(2)
            .debug(true)
            .cargo_metadata(false);
        build
    }

    #[test]
    fn a_file_budget_wins_over_its_group_budget() {
        let pkg = Scratch::new("budgets", &["t/a.c", "t/b.c"]);
        let manifest = Tests::new()
            .timeout(std::time::Duration::from_secs(90))
            .max_states(1_000)
            .file("t/a.c")
            .file_with("t/b.c", |f| {
                f.max_states(7).sb_bound(2).allow_inconclusive();
            })
            .to_manifest("demo", &pkg.0)
            .unwrap();
        let (a, b) = (manifest.tests[0].budget, manifest.tests[1].budget);
        assert_eq!((a.timeout_ms, a.max_states), (Some(90_000), Some(1_000)));
        assert_eq!((a.sb_bound, a.allow_inconclusive), (None, None));
        assert_eq!((b.timeout_ms, b.max_states), (Some(90_000), Some(7)));
        assert_eq!((b.sb_bound, b.allow_inconclusive), (Some(2), Some(true)));
    }

    #[test]
    fn a_file_list_of_memory_models_replaces_its_group_list() {
        use crate::MemoryModel::{Sc, Tso, C11};
        let pkg = Scratch::new("models", &["t/a.c", "t/b.c", "t/c.c"]);
        let manifest = Tests::new()
            .memory_models([Tso, C11, Tso])
            .file("t/a.c")
            .file_with("t/b.c", |f| {
                f.memory_models([C11]);
            })
            .to_manifest("demo", &pkg.0)
            .unwrap();
        assert_eq!(manifest.tests[0].memory_models, [Tso, C11], "each once");
        assert_eq!(manifest.format_version, 2);
        assert_eq!(manifest.tests[1].memory_models, [C11]);
        let plain = Tests::new()
            .file_with("t/c.c", |f| {
                f.memory_models([Sc]);
            })
            .file("t/a.c")
            .to_manifest("demo", &pkg.0)
            .unwrap();
        assert_eq!(plain.tests[0].memory_models, [Sc]);
        let none = Tests::new()
            .file("t/a.c")
            .to_manifest("demo", &pkg.0)
            .unwrap();
        assert_eq!(none.format_version, 1, "readable by older tools");
        assert!(plain.tests[1].memory_models.is_empty());
    }

    #[test]
    fn inherits_cc_settings_then_adds_own_layers() {
        let pkg = Scratch::new("layers", &["t/a.c", "csrc/lib.c"]);
        let mut build = host_build();
        build
            .include("csrc")
            .define("FROM_CC", Some("1"))
            .std("c11")
            .flag("-fno-strict-aliasing");
        let manifest = Tests::new()
            .cc_build(&build)
            .define("SHARED", None)
            .include("t")
            .source("csrc/lib.c")
            .file_with("t/a.c", |f| {
                f.define("FROM_CC", "2").flag("-fwrapv").flag("-Iextra");
            })
            .to_manifest("demo", &pkg.0)
            .unwrap();
        let test = &manifest.tests[0];
        assert_eq!(test.path, pkg.0.join("t/a.c"));
        assert_eq!(test.std.as_deref(), Some("c11"));
        assert_eq!(
            test.include_dirs,
            vec![
                pkg.0.join("csrc"),
                pkg.0.join("t"),
                pkg.0.join("extra"),
                include_dir()
            ]
        );
        let defines: Vec<String> = test.defines.iter().map(Define::to_arg).collect();
        assert_eq!(defines, ["-DFROM_CC=1", "-DSHARED", "-DFROM_CC=2"]);
        assert_eq!(test.flags.last().map(String::as_str), Some("-fwrapv"));
        assert!(test.flags.contains(&"-fno-strict-aliasing".to_owned()));
        assert!(!test
            .flags
            .iter()
            .any(|f| f.starts_with("-O") || f.starts_with("-g")));
        assert_eq!(test.opt_level.as_deref(), Some("2"), "cc's opt_level(2)");
        assert_eq!(test.sources, vec![pkg.0.join("csrc/lib.c")]);
        assert!(manifest.compiler.is_some());
    }

    #[test]
    fn opt_level_comes_from_the_most_specific_layer() {
        let pkg = Scratch::new("opt", &["t/a.c", "t/b.c"]);
        let mut build = host_build();
        build.flag("-O3");
        let manifest = Tests::new()
            .cc_build(&build)
            .file("t/a.c")
            .file_with("t/b.c", |f| {
                f.flag("-O1");
            })
            .to_manifest("demo", &pkg.0)
            .unwrap();
        assert_eq!(
            manifest.tests[0].opt_level.as_deref(),
            Some("3"),
            "a flag after opt_level(2)"
        );
        assert_eq!(manifest.tests[1].opt_level.as_deref(), Some("1"));
        let plain = Tests::new().file("t/a.c").to_manifest("d", &pkg.0).unwrap();
        assert_eq!(plain.tests[0].opt_level, None);
    }

    #[test]
    fn cc_std_of_the_other_language_is_not_inherited() {
        let pkg = Scratch::new("std", &["t/a.cpp", "t/b.c"]);
        let mut build = host_build();
        build.std("c11");
        let manifest = Tests::new()
            .cc_build(&build)
            .file("t/a.cpp")
            .file_with("t/b.c", |f| {
                f.std("gnu99");
            })
            .to_manifest("demo", &pkg.0)
            .unwrap();
        assert_eq!(manifest.tests[0].language, Language::Cxx);
        assert_eq!(manifest.tests[0].std, None);
        assert_eq!(manifest.tests[1].std.as_deref(), Some("gnu99"));
    }

    #[test]
    fn dir_lists_c_and_cxx_files_sorted() {
        let pkg = Scratch::new("dir", &["t/b.cpp", "t/a.c", "t/notes.md", "t/sub/c.c"]);
        let manifest = Tests::new().dir("t").to_manifest("demo", &pkg.0).unwrap();
        let paths: Vec<&Path> = manifest.tests.iter().map(|t| t.path.as_path()).collect();
        assert_eq!(paths, [pkg.0.join("t/a.c"), pkg.0.join("t/b.cpp")]);
    }

    #[test]
    fn missing_file_and_unknown_language_are_errors() {
        let pkg = Scratch::new("missing", &["t/x.txt"]);
        let err = Tests::new()
            .file("t/nope.c")
            .to_manifest("d", &pkg.0)
            .unwrap_err();
        assert!(matches!(err, Error::MissingFile(_)), "{err}");
        let err = Tests::new()
            .file("t/x.txt")
            .to_manifest("d", &pkg.0)
            .unwrap_err();
        assert!(matches!(err, Error::UnknownLanguage(_)), "{err}");
        let err = Tests::new()
            .dir("absent")
            .to_manifest("d", &pkg.0)
            .unwrap_err();
        assert!(matches!(err, Error::ListDir { .. }), "{err}");
    }

    #[test]
    fn groups_link_their_own_sources_and_stems_stay_distinct() {
        let pkg = Scratch::new(
            "groups",
            &[
                "t/queue/q.c",
                "t/stack/s.c",
                "t/stack/q.c",
                "csrc/queue.c",
                "csrc/stack.c",
            ],
        );
        let mut queue = Tests::new();
        queue.source("csrc/queue.c").file("t/queue/q.c");
        let mut stack = Tests::new();
        stack.source("csrc/stack.c").file("t/stack/s.c");
        let manifest = manifest_of([&queue, &stack], "demo", &pkg.0).unwrap();
        let sources: Vec<&[PathBuf]> = manifest.tests.iter().map(|t| &t.sources[..]).collect();
        assert_eq!(
            sources,
            [[pkg.0.join("csrc/queue.c")], [pkg.0.join("csrc/stack.c")]]
        );
        stack.file("t/stack/q.c");
        let err = manifest_of([&queue, &stack], "demo", &pkg.0).unwrap_err();
        assert!(
            matches!(err, Error::DuplicateStem { ref stem, .. } if stem == "q"),
            "{err}"
        );
        assert!(err.to_string().contains("`demo::q::...`"), "{err}");
    }

    #[test]
    fn language_override_applies() {
        let pkg = Scratch::new("lang", &["t/x.inc"]);
        let manifest = Tests::new()
            .language(Language::Cxx)
            .file("t/x.inc")
            .to_manifest("d", &pkg.0)
            .unwrap();
        assert_eq!(manifest.tests[0].language, Language::Cxx);
    }
}
