//! Turning a compiler command line (cc's view of it) into the settings that decide
//! what a C/C++ program means: standard, include directories, defines and the
//! `-f`/`-m` flags. Optimisation, debug, warning and pure code-layout flags are
//! dropped: the tool picks its own, and some (sanitizers, stack protectors,
//! profiling) would put calls into the bitcode that the checker does not model.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::manifest::Define;
use crate::Error;

/// The meaning-relevant part of a compiler command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompileSettings {
    /// Value of the last `-std=`.
    pub std: Option<String>,
    /// `-I` directories, in order, absolute.
    pub include_dirs: Vec<PathBuf>,
    /// `-D` definitions, in order.
    pub defines: Vec<Define>,
    /// Other kept flags; path operands made absolute.
    pub flags: Vec<String>,
    /// The optimisation level of the last `-O` flag (`0`..`3`, `s`, `z`, `g`), the
    /// level the library is built at: code that is only wrong when optimised must be
    /// checked optimised.
    pub opt_level: Option<String>,
}

/// The level a `-O...` argument selects, as the text after `-O` (`-O` alone is `1`,
/// `-Ofast` is `3` plus fast-math, which clang deprecates; it is kept as `3`).
fn opt_level_of(arg: &str) -> Option<String> {
    let level = arg.strip_prefix("-O")?;
    match level {
        "" => Some("1".to_owned()),
        "fast" => Some("3".to_owned()),
        "0" | "1" | "2" | "3" | "s" | "z" | "g" => Some(level.to_owned()),
        _ => None,
    }
}

/// `-f` flags that only change code layout, debugging or instrumentation.
const DROPPED_F_PREFIXES: &[&str] = &[
    "-ffunction-sections",
    "-fdata-sections",
    "-fPIC",
    "-fpic",
    "-fPIE",
    "-fpie",
    "-fno-PIC",
    "-fno-pic",
    "-fno-PIE",
    "-fno-pie",
    "-fsanitize",
    "-fno-sanitize",
    "-fstack-protector",
    "-fno-stack-protector",
    "-fstack-clash-protection",
    "-fcf-protection",
    "-fprofile",
    "-fcoverage",
    "-ftest-coverage",
    "-flto",
    "-fno-lto",
    "-fdebug",
    "-ffile-prefix-map",
    "-fmacro-prefix-map",
    "-fdiagnostics",
    "-fcolor-diagnostics",
    "-fno-color-diagnostics",
    "-fmessage-length",
    "-fomit-frame-pointer",
    "-fno-omit-frame-pointer",
    "-fvisibility",
    "-fno-plt",
    "-fasynchronous-unwind-tables",
    "-fno-asynchronous-unwind-tables",
    "-funwind-tables",
    "-fno-unwind-tables",
    "-fembed-bitcode",
    "-fuse-ld",
];

/// `-m` flags that only change frame layout.
const DROPPED_M_FLAGS: &[&str] = &["-momit-leaf-frame-pointer", "-mno-omit-leaf-frame-pointer"];

/// Flags that take their operand as the next argument and name a path.
const PATH_OPERAND_FLAGS: &[&str] = &["-isystem", "-iquote", "-idirafter", "-include"];

/// Stand-alone flags outside `-f`/`-m` that change meaning.
const KEPT_PLAIN_FLAGS: &[&str] = &["-pthread", "-nostdinc", "-nostdinc++", "-ansi"];

/// Flags that take the next argument as operand and are dropped with it.
const DROPPED_OPERAND_FLAGS: &[&str] = &["-target", "-Xcompiler", "-o", "-x", "-MF", "-MT", "-MQ"];

impl CompileSettings {
    /// Extracts the settings from compiler arguments; relative paths are taken
    /// relative to `base_dir` (a build script runs in the package directory).
    pub fn from_args(args: &[OsString], base_dir: &Path) -> Result<CompileSettings, Error> {
        let mut texts = Vec::with_capacity(args.len());
        for arg in args {
            let text = arg.to_str().ok_or_else(|| Error::NonUtf8Arg(arg.clone()))?;
            texts.push(text);
        }
        let mut settings = CompileSettings::default();
        let mut rest = texts.into_iter();
        while let Some(arg) = rest.next() {
            let mut operand = |flag: &str| {
                rest.next()
                    .ok_or_else(|| Error::FlagWithoutValue(flag.to_owned()))
            };
            if arg == "-I" {
                settings
                    .include_dirs
                    .push(absolute(base_dir, operand(arg)?));
            } else if let Some(dir) = arg.strip_prefix("-I") {
                settings.include_dirs.push(absolute(base_dir, dir));
            } else if arg == "-D" {
                settings.defines.push(Define::parse(operand(arg)?));
            } else if let Some(def) = arg.strip_prefix("-D") {
                settings.defines.push(Define::parse(def));
            } else if let Some(std) = arg.strip_prefix("-std=") {
                settings.std = Some(std.to_owned());
            } else if arg == "-U" {
                settings.flags.push(format!("-U{}", operand(arg)?));
            } else if let Some(level) = opt_level_of(arg) {
                settings.opt_level = Some(level);
            } else if arg.starts_with("-U") {
                settings.flags.push(arg.to_owned());
            } else if PATH_OPERAND_FLAGS.contains(&arg) {
                let path = absolute(base_dir, operand(arg)?);
                settings.flags.push(arg.to_owned());
                settings.flags.push(path.to_string_lossy().into_owned());
            } else if DROPPED_OPERAND_FLAGS.contains(&arg) {
                operand(arg)?;
            } else if arg.starts_with("-f") {
                if !DROPPED_F_PREFIXES.iter().any(|p| arg.starts_with(p)) {
                    settings.flags.push(arg.to_owned());
                }
            } else if (arg.starts_with("-m") && !DROPPED_M_FLAGS.contains(&arg))
                || KEPT_PLAIN_FLAGS.contains(&arg)
            {
                settings.flags.push(arg.to_owned());
            }
            // Everything else (-g, -W, -w, -c, --target=, ...) is not about meaning.
        }
        Ok(settings)
    }
}

/// `path` made absolute against `base_dir` (no canonicalisation: the path may not
/// exist yet and symlinks are the user's business).
pub(crate) fn absolute(base_dir: &Path, path: impl AsRef<Path>) -> PathBuf {
    let path = path.as_ref();
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base_dir.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(args: &[&str]) -> CompileSettings {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        CompileSettings::from_args(&args, Path::new("/pkg")).unwrap()
    }

    #[test]
    fn typical_cc_command_line() {
        let s = settings(&[
            "-O2",
            "-ffunction-sections",
            "-fdata-sections",
            "-fPIC",
            "-gdwarf-4",
            "-fno-omit-frame-pointer",
            "-mno-omit-leaf-frame-pointer",
            "-m64",
            "-std=c11",
            "-I",
            "csrc",
            "-I",
            "/abs/inc",
            "-Wall",
            "-Wextra",
            "-fno-strict-aliasing",
            "-DA=1",
            "-DB",
            "-Werror",
        ]);
        assert_eq!(s.std.as_deref(), Some("c11"));
        assert_eq!(
            s.include_dirs,
            vec![PathBuf::from("/pkg/csrc"), PathBuf::from("/abs/inc")]
        );
        assert_eq!(s.defines, vec![Define::parse("A=1"), Define::parse("B")]);
        assert_eq!(s.flags, vec!["-m64", "-fno-strict-aliasing"]);
        assert_eq!(s.opt_level.as_deref(), Some("2"));
    }

    #[test]
    fn last_opt_level_wins() {
        assert_eq!(settings(&["-O2", "-Os"]).opt_level.as_deref(), Some("s"));
        assert_eq!(settings(&["-O3", "-O"]).opt_level.as_deref(), Some("1"));
        assert_eq!(settings(&["-Ofast"]).opt_level.as_deref(), Some("3"));
        assert_eq!(settings(&["-Wall"]).opt_level, None);
    }

    #[test]
    fn last_std_wins_and_joined_forms_work() {
        let s = settings(&["-std=c99", "-Iinc", "-D", "X=2", "-std=gnu11", "-U", "Y"]);
        assert_eq!(s.std.as_deref(), Some("gnu11"));
        assert_eq!(s.include_dirs, vec![PathBuf::from("/pkg/inc")]);
        assert_eq!(s.defines, vec![Define::parse("X=2")]);
        assert_eq!(s.flags, vec!["-UY"]);
    }

    #[test]
    fn instrumentation_flags_are_dropped_semantic_ones_kept() {
        let s = settings(&[
            "-fsanitize=address",
            "-fstack-protector-strong",
            "-fno-exceptions",
            "-fno-rtti",
            "-fwrapv",
            "-pthread",
            "-target",
            "x86_64-unknown-linux-gnu",
        ]);
        assert_eq!(
            s.flags,
            vec!["-fno-exceptions", "-fno-rtti", "-fwrapv", "-pthread"]
        );
    }

    #[test]
    fn path_operands_become_absolute() {
        let s = settings(&["-include", "config.h", "-isystem", "/usr/x"]);
        assert_eq!(
            s.flags,
            vec!["-include", "/pkg/config.h", "-isystem", "/usr/x"]
        );
    }

    #[test]
    fn missing_operand_is_an_error() {
        let args = vec![OsString::from("-I")];
        let err = CompileSettings::from_args(&args, Path::new("/")).unwrap_err();
        assert!(
            matches!(err, Error::FlagWithoutValue(ref f) if f == "-I"),
            "{err}"
        );
    }
}
