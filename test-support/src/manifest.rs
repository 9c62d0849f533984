//! The manifest a build script writes to `$OUT_DIR/tso-tests.json` and `cargo tso`
//! reads: which C/C++ test files a package has and how to compile each one.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::Error;

/// File name of the manifest inside the build script's `OUT_DIR`.
pub const MANIFEST_FILE_NAME: &str = "tso-tests.json";

/// The newest manifest version. Bumped on incompatible changes; readers reject
/// versions they do not know instead of guessing. Version 2 adds
/// [`TestFile::memory_models`]: a manifest that declares models is written as version
/// 2, so a cargo-tso that would ignore them (and run those tests under one model only,
/// reporting them passed) refuses it; any other is written as version 1.
pub const FORMAT_VERSION: u32 = 2;

/// The oldest manifest version this crate reads.
const OLDEST_READ_VERSION: u32 = 1;

/// All TSO tests of one package.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The oldest version that holds everything this manifest says
    /// ([`Manifest::version_needed`]).
    pub format_version: u32,
    /// The package name (`CARGO_PKG_NAME`).
    pub package: String,
    /// Absolute path of the package directory (`CARGO_MANIFEST_DIR`).
    pub manifest_dir: PathBuf,
    /// The C/C++ compiler cc chose for the library, for information only: the tool
    /// compiles with its own clang, using the flags recorded per test.
    #[serde(default)]
    pub compiler: Option<PathBuf>,
    /// One entry per test file, in declaration order.
    pub tests: Vec<TestFile>,
}

/// One C or C++ test file (a translation unit holding `TSO_TEST`s) and how to compile it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestFile {
    /// Absolute path of the test file.
    pub path: PathBuf,
    /// Source language.
    pub language: Language,
    /// Language standard without `-std=`, e.g. `c11`, `c++17`.
    pub std: Option<String>,
    /// Include directories in search order, absolute. Ends with test-support's own
    /// include directory, so `#include <tso.h>` works.
    pub include_dirs: Vec<PathBuf>,
    /// Preprocessor definitions in command-line order (later ones win).
    pub defines: Vec<Define>,
    /// Other compiler flags that change the meaning of the program (`-f...`, `-m...`,
    /// `-U...`, `-include FILE`, `-isystem DIR`), in order. Optimisation, debug and
    /// warning flags are not recorded: the tool chooses those itself.
    pub flags: Vec<String>,
    /// Further translation units (absolute paths, e.g. the library's own C files) to
    /// compile with the same settings and link with the test before checking.
    #[serde(default)]
    pub sources: Vec<PathBuf>,
    /// The optimisation level the library's `cc::Build` uses (its `opt_level`, an
    /// `-O` flag, or cargo's `OPT_LEVEL` for the profile), as the text after `-O`;
    /// `None` when no build or flag says (the tool then uses `0`).
    #[serde(default)]
    pub opt_level: Option<String>,
    /// What a data race does to this file's tests ([`crate::Tests::races`]); `None`:
    /// the command line's `--races`, by default `warn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub races: Option<Races>,
    /// This file's tests' budgets ([`crate::Tests::timeout`] and its siblings).
    #[serde(default, skip_serializing_if = "Budget::is_empty")]
    pub budget: Budget,
    /// The memory models this file's tests run under ([`crate::Tests::memory_models`]),
    /// each once; empty: the command line's `--memory-model`, by default `tso`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub memory_models: Vec<MemoryModel>,
}

/// A memory model a test runs under (`cargo tso test --memory-model`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryModel {
    /// Sequential consistency.
    Sc,
    /// x86-TSO.
    Tso,
    /// C11 (RC11, without load buffering).
    C11,
}

impl MemoryModel {
    /// `sc`, `tso` or `c11`: the name `--memory-model` takes and test names carry.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryModel::Sc => "sc",
            MemoryModel::Tso => "tso",
            MemoryModel::C11 => "c11",
        }
    }
}

/// What one test may spend before it stops as inconclusive, and whether that fails
/// the run; `None`: what `cargo tso test` says (its flags or defaults). The command
/// line's flags win over these, as nextest's command line wins over its config.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budget {
    /// Wall time for all of a test's searches, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// States stored by one search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_states: Option<u64>,
    /// Heap the test's exploration may hold, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_memory: Option<u64>,
    /// Store-buffer bound (0 = unbounded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sb_bound: Option<u32>,
    /// A test a budget stops is reported as inconclusive without failing the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_inconclusive: Option<bool>,
}

impl Budget {
    pub fn is_empty(&self) -> bool {
        *self == Budget::default()
    }

    /// Each of `self`'s settings, else `general`'s.
    pub fn or(self, general: Budget) -> Budget {
        Budget {
            timeout_ms: self.timeout_ms.or(general.timeout_ms),
            max_states: self.max_states.or(general.max_states),
            max_memory: self.max_memory.or(general.max_memory),
            sb_bound: self.sb_bound.or(general.sb_bound),
            allow_inconclusive: self.allow_inconclusive.or(general.allow_inconclusive),
        }
    }
}

/// What a data race does to a test (`cargo tso test --races`, [`crate::Tests::races`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Races {
    /// Races are not tracked.
    Allow,
    /// Races are reported beside the verdict, which they do not change.
    Warn,
    /// A race fails the test (kind `data-race`).
    Deny,
}

/// Source language of a test file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Language {
    #[serde(rename = "c")]
    C,
    #[serde(rename = "c++")]
    Cxx,
}

/// A preprocessor definition: `-DNAME` or `-DNAME=VALUE`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Define {
    pub name: String,
    pub value: Option<String>,
}

impl Manifest {
    /// Reads and checks a manifest written by [`crate::Tests::emit`].
    pub fn read(path: impl AsRef<Path>) -> Result<Manifest, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_json(&text, path)
    }

    /// Parses manifest text; `origin` only names the source in errors.
    pub fn from_json(text: &str, origin: &Path) -> Result<Manifest, Error> {
        // Look at the version first so an incompatible manifest is reported as
        // such rather than as whatever field happens to differ.
        #[derive(Deserialize)]
        struct VersionOnly {
            format_version: u32,
        }
        let json_error = |source| Error::Json {
            path: origin.to_path_buf(),
            source,
        };
        let version: VersionOnly = serde_json::from_str(text).map_err(json_error)?;
        if !(OLDEST_READ_VERSION..=FORMAT_VERSION).contains(&version.format_version) {
            return Err(Error::UnsupportedVersion {
                path: origin.to_path_buf(),
                found: version.format_version,
                expected: FORMAT_VERSION,
            });
        }
        serde_json::from_str(text).map_err(json_error)
    }

    /// The oldest format version that holds every field `tests` uses.
    pub fn version_needed(tests: &[TestFile]) -> u32 {
        match tests.iter().any(|t| !t.memory_models.is_empty()) {
            true => FORMAT_VERSION,
            false => OLDEST_READ_VERSION,
        }
    }

    /// The manifest as pretty JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        // Serialising these plain structs cannot fail (string keys, no maps of
        // non-string keys); fall back to an empty object rather than panic.
        let mut text = serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_owned());
        text.push('\n');
        text
    }

    /// Writes the manifest to `path`, leaving the file untouched when its content is
    /// already the same (so its mtime does not trigger rebuilds).
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let text = self.to_json();
        if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
            return Ok(());
        }
        std::fs::write(path, text).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })
    }
}

impl Language {
    /// The language a file's extension says: `.c` is C; `.cc`, `.cpp`, `.cxx`,
    /// `.c++` and `.C` are C++.
    pub fn from_path(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()? {
            "c" => Some(Language::C),
            "cc" | "cpp" | "cxx" | "c++" | "C" => Some(Language::Cxx),
            _ => None,
        }
    }

    /// Whether a `-std=` value belongs to this language (`c++17`/`gnu++17` are C++).
    pub fn accepts_std(self, std: &str) -> bool {
        let is_cxx_std = std.contains("++");
        match self {
            Language::C => !is_cxx_std,
            Language::Cxx => is_cxx_std,
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Language::C => "c",
            Language::Cxx => "c++",
        })
    }
}

impl Define {
    pub fn new(name: impl Into<String>, value: Option<impl Into<String>>) -> Define {
        Define {
            name: name.into(),
            value: value.map(Into::into),
        }
    }

    /// Parses the text after `-D`: `NAME` or `NAME=VALUE`.
    pub fn parse(text: &str) -> Define {
        match text.split_once('=') {
            Some((name, value)) => Define::new(name, Some(value)),
            None => Define::new(text, None::<String>),
        }
    }

    /// The definition as a compiler argument, `-DNAME[=VALUE]`.
    pub fn to_arg(&self) -> String {
        match &self.value {
            Some(value) => format!("-D{}={}", self.name, value),
            None => format!("-D{}", self.name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            format_version: FORMAT_VERSION,
            package: "demo".into(),
            manifest_dir: "/src/demo".into(),
            compiler: Some("cc".into()),
            tests: vec![TestFile {
                path: "/src/demo/tso-tests/a.cpp".into(),
                language: Language::Cxx,
                std: Some("c++17".into()),
                include_dirs: vec!["/src/demo/include".into()],
                defines: vec![Define::parse("N=3"), Define::parse("FAST")],
                flags: vec!["-fno-exceptions".into()],
                sources: vec!["/src/demo/csrc/lib.cpp".into()],
                opt_level: Some("2".into()),
                races: Some(Races::Deny),
                budget: Budget {
                    timeout_ms: Some(30_000),
                    sb_bound: Some(4),
                    ..Budget::default()
                },
                memory_models: vec![MemoryModel::Tso, MemoryModel::C11],
            }],
        }
    }

    #[test]
    fn json_round_trip_keeps_every_field() {
        let manifest = sample();
        let back = Manifest::from_json(&manifest.to_json(), Path::new("x")).unwrap();
        assert_eq!(back, manifest);
    }

    #[test]
    fn a_file_budget_wins_over_its_group_setting_by_setting() {
        let file = Budget {
            max_states: Some(10),
            ..Budget::default()
        };
        let group = Budget {
            max_states: Some(99),
            timeout_ms: Some(5_000),
            ..Budget::default()
        };
        let both = file.or(group);
        assert_eq!(both.max_states, Some(10));
        assert_eq!(both.timeout_ms, Some(5_000));
        assert!(Budget::default().is_empty() && !both.is_empty());
    }

    #[test]
    fn memory_models_are_written_by_name_and_absent_when_none_is_declared() {
        let json = sample().to_json();
        assert!(
            json.contains("\"memory_models\": [\n        \"tso\",\n        \"c11\""),
            "{json}"
        );
        let mut plain = sample();
        plain.tests[0].memory_models.clear();
        let json = plain.to_json();
        assert!(!json.contains("memory_models"), "{json}");
        let back = Manifest::from_json(&json, Path::new("x")).unwrap();
        assert!(back.tests[0].memory_models.is_empty());
    }

    #[test]
    fn language_is_written_as_c_or_cxx() {
        let json = sample().to_json();
        assert!(json.contains(r#""language": "c++""#), "{json}");
    }

    #[test]
    fn other_format_version_is_rejected() {
        let json = sample().to_json().replace(
            &format!("\"format_version\": {FORMAT_VERSION}"),
            "\"format_version\": 99",
        );
        let err = Manifest::from_json(&json, Path::new("m.json")).unwrap_err();
        assert!(
            matches!(err, Error::UnsupportedVersion { found: 99, .. }),
            "{err}"
        );
    }

    #[test]
    fn only_a_manifest_declaring_memory_models_needs_version_2() {
        let mut manifest = sample();
        assert_eq!(Manifest::version_needed(&manifest.tests), 2);
        manifest.tests[0].memory_models.clear();
        assert_eq!(Manifest::version_needed(&manifest.tests), 1);
        manifest.format_version = 1;
        let back = Manifest::from_json(&manifest.to_json(), Path::new("x")).unwrap();
        assert_eq!(back, manifest, "version 1 is still read");
    }

    #[test]
    fn malformed_json_is_an_error() {
        let err = Manifest::from_json("{\"format_version\": 1}", Path::new("m")).unwrap_err();
        assert!(matches!(err, Error::Json { .. }), "{err}");
    }

    #[test]
    fn define_parse_and_print() {
        assert_eq!(Define::parse("A=b=c").value.as_deref(), Some("b=c"));
        assert_eq!(Define::parse("A").value, None);
        assert_eq!(Define::parse("A=1").to_arg(), "-DA=1");
        assert_eq!(Define::parse("A").to_arg(), "-DA");
    }

    #[test]
    fn language_from_extension_and_std() {
        assert_eq!(Language::from_path(Path::new("x.c")), Some(Language::C));
        assert_eq!(Language::from_path(Path::new("x.cpp")), Some(Language::Cxx));
        assert_eq!(Language::from_path(Path::new("x.h")), None);
        assert!(Language::Cxx.accepts_std("gnu++17"));
        assert!(!Language::C.accepts_std("c++17"));
        assert!(Language::C.accepts_std("c11"));
    }

    #[test]
    fn write_then_read() {
        let dir = std::env::temp_dir().join(format!("tso-manifest-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(MANIFEST_FILE_NAME);
        sample().write(&path).unwrap();
        assert_eq!(Manifest::read(&path).unwrap(), sample());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
