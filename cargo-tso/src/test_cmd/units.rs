//! Compiling each declared test file (with its extra sources, linked) to one module,
//! with the flags cc computed, through the bitcode cache.

use std::path::{Path, PathBuf};

use test_support::{Manifest, TestFile};

use crate::compile::{self, Cache, CacheUse, CompileError, CompileRequest};

/// One compiled (or not) test file.
#[derive(Debug)]
pub struct Unit {
    pub package: String,
    /// The test file's stem, the middle part of its tests' names.
    pub stem: String,
    pub path: PathBuf,
    /// The optimisation level it was compiled at (the text after `-O`).
    pub opt_level: String,
    /// The linked module, or why there is none (clang's diagnostics).
    pub bitcode: Result<PathBuf, String>,
    /// The extra sources linked into the module (`.source(...)`), each with its own
    /// compiled module: where a construct that fails the whole module came from.
    pub linked: Vec<LinkedSource>,
    /// The build script's race policy for this file (`Tests::races`), if any.
    pub races: Option<tso_engine::RacePolicy>,
    /// The build script's budgets for this file's tests (`Tests::timeout` ...).
    pub budget: test_support::Budget,
    /// The memory models the build script declares for this file's tests
    /// (`Tests::memory_models`); empty: the command line's.
    pub memory_models: Vec<crate::settings::MemoryModel>,
}

/// One extra source of a test file and its compiled (unlinked) module.
#[derive(Debug, Clone)]
pub struct LinkedSource {
    pub source: PathBuf,
    pub bitcode: PathBuf,
}

/// The compiled modules of one test file: the linked module and its extra sources.
struct Compiled {
    module: PathBuf,
    linked: Vec<LinkedSource>,
}

/// How many compiles the cache saved.
#[derive(Debug, Default, Clone, Copy)]
pub struct CacheCounts {
    pub compiled: usize,
    pub cached: usize,
}

impl CacheCounts {
    fn note(&mut self, used: CacheUse, path: &Path, verbose: bool) {
        let word = match used {
            CacheUse::Compiled => {
                self.compiled += 1;
                "Compiled"
            }
            CacheUse::Cached => {
                self.cached += 1;
                "Cached"
            }
        };
        if verbose {
            eprintln!(
                "{word:>12} {}",
                crate::render::paths::display_path(&path.display().to_string())
            );
        }
    }
}

/// The clang arguments for a manifest entry, in the order clang should see them.
fn arguments(file: &TestFile, opt_level: &str, include: &Path) -> Vec<String> {
    let mut args = compile::base_args(file.language, opt_level, include);
    if let Some(std) = &file.std {
        args.push(format!("-std={std}"));
    }
    args.extend(
        file.include_dirs
            .iter()
            .map(|d| format!("-I{}", d.display())),
    );
    args.extend(file.defines.iter().map(|d| d.to_arg()));
    args.extend(file.flags.iter().cloned());
    // Tests rely on assert(); a release-style NDEBUG from cc must not remove it.
    args.push("-UNDEBUG".to_owned());
    args.extend(compile::source_specific_args(&file.path));
    args
}

fn compile_file(
    cache: &Cache,
    file: &TestFile,
    opt_level: &str,
    include: &Path,
    counts: &mut CacheCounts,
    verbose: bool,
) -> Result<Compiled, CompileError> {
    let mut modules = Vec::new();
    for source in std::iter::once(&file.path).chain(file.sources.iter()) {
        // An extra source in the other language (a C library under a C++ test) keeps
        // the flags but not the test's language standard.
        let language = test_support::Language::from_path(source).unwrap_or(file.language);
        let args = if language == file.language {
            arguments(file, opt_level, include)
        } else {
            arguments(
                &TestFile {
                    language,
                    std: None,
                    ..file.clone()
                },
                opt_level,
                include,
            )
        };
        let (bitcode, used) = cache.compile(&CompileRequest {
            source: source.clone(),
            language,
            args,
        })?;
        counts.note(used, source, verbose);
        modules.push(bitcode);
    }
    if modules.len() == 1 {
        return Ok(Compiled {
            module: modules.remove(0),
            linked: Vec::new(),
        });
    }
    let (module, _) = cache.link(&modules, &file.path.display().to_string())?;
    let linked = file
        .sources
        .iter()
        .zip(modules.into_iter().skip(1))
        .map(|(source, bitcode)| LinkedSource {
            source: source.clone(),
            bitcode,
        })
        .collect();
    Ok(Compiled { module, linked })
}

/// The level a test file is compiled at: `-O` given to `cargo tso test`, else the one
/// its `cc::Build` uses (recorded in the manifest), else 0.
pub fn opt_level_of(file: &TestFile, overridden: Option<&str>) -> String {
    overridden
        .or(file.opt_level.as_deref())
        .unwrap_or("0")
        .to_owned()
}

/// Compiles every test file of every manifest. A file that does not compile is kept
/// with its diagnostics, so its tests fail instead of the whole run.
pub fn build_all(
    cache: &Cache,
    manifests: &[Manifest],
    opt_override: Option<&str>,
    verbose: bool,
) -> Result<(Vec<Unit>, CacheCounts), CompileError> {
    let include = cache.include_dir()?;
    let mut counts = CacheCounts::default();
    let mut units = Vec::new();
    for manifest in manifests {
        for file in &manifest.tests {
            let opt_level = opt_level_of(file, opt_override);
            let mut linked = Vec::new();
            let bitcode =
                match compile_file(cache, file, &opt_level, &include, &mut counts, verbose) {
                    Ok(compiled) => {
                        linked = compiled.linked;
                        Ok(compiled.module)
                    }
                    Err(
                        error @ (CompileError::Diagnostics { .. }
                        | CompileError::Link { .. }
                        | CompileError::Io { .. }),
                    ) => Err(error.to_string()),
                    Err(other) => return Err(other),
                };
            units.push(Unit {
                package: manifest.package.clone(),
                stem: file
                    .path
                    .file_stem()
                    .map_or_else(|| "test".to_owned(), |s| s.to_string_lossy().into_owned()),
                path: file.path.clone(),
                opt_level,
                bitcode,
                linked,
                races: file.races.map(|r| match r {
                    test_support::Races::Allow => tso_engine::RacePolicy::Allow,
                    test_support::Races::Warn => tso_engine::RacePolicy::Warn,
                    test_support::Races::Deny => tso_engine::RacePolicy::Deny,
                }),
                budget: file.budget,
                memory_models: file.memory_models.clone(),
            });
        }
    }
    Ok((units, counts))
}
