//! libtest's arguments: the ones after `--` exactly as `cargo test` hands them to a
//! test binary, parsed by `libtest_mimic::Arguments` (libtest's grammar; an unknown
//! flag is a usage error, never a name filter), merged with the same flags given
//! before `--`.

use clap::Parser;
use libtest_mimic::{Arguments, ColorSetting, FormatSetting};

use crate::cli::{ColorChoice, TestArgs, TestFormat};

/// What libtest's flags ask for, from both sides of `--`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibtestOptions {
    pub filters: Vec<String>,
    pub exact: bool,
    pub skip: Vec<String>,
    pub list: bool,
    pub ignored: bool,
    pub include_ignored: bool,
    pub format: TestFormat,
    pub color: ColorChoice,
    pub test_threads: Option<usize>,
    /// `--show-output` / `--nocapture`: print what passing tests printed.
    pub show_output: bool,
}

/// A usage error in the arguments after `--` (exit 2).
#[derive(Debug)]
pub enum UsageError {
    Libtest(clap::Error),
    Unsupported(&'static str),
}

impl UsageError {
    /// `-- --help`: libtest's help was asked for, not an error.
    pub fn is_help(&self) -> bool {
        matches!(self, UsageError::Libtest(error) if !error.use_stderr())
    }
}

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UsageError::Libtest(error) => {
                // clap's tip to put the flag after `--` is wrong here: it already is.
                let text = error.render().to_string();
                let kept: Vec<&str> = text
                    .lines()
                    .filter(|line| !line.trim_start().starts_with("tip: to pass"))
                    .collect();
                write!(f, "{}", kept.join("\n"))
            }
            UsageError::Unsupported(what) => write!(f, "error: {what}"),
        }
    }
}

impl LibtestOptions {
    pub fn from_args(args: &TestArgs) -> Result<LibtestOptions, UsageError> {
        let after = Arguments::try_parse_from(
            std::iter::once("cargo tso test --".to_owned())
                .chain(args.libtest_args.iter().cloned()),
        )
        .map_err(UsageError::Libtest)?;
        if after.bench {
            return Err(UsageError::Unsupported(
                "`--bench`: cargo tso test has tests, no benchmarks",
            ));
        }
        if after.logfile.is_some() {
            return Err(UsageError::Unsupported(
                "`--logfile` is not supported; use `--format json` or `--junit PATH`",
            ));
        }
        let before = &args.libtest;
        if (before.ignored || after.ignored) && (before.include_ignored || after.include_ignored) {
            return Err(UsageError::Unsupported(
                "`--ignored` and `--include-ignored` exclude each other",
            ));
        }
        let quiet = before.quiet || after.quiet;
        let format = after
            .format
            .map(|f| match f {
                FormatSetting::Pretty => TestFormat::Pretty,
                FormatSetting::Terse => TestFormat::Terse,
                FormatSetting::Json => TestFormat::Json,
            })
            .or(before.format)
            .unwrap_or(if quiet {
                TestFormat::Terse
            } else {
                TestFormat::Pretty
            });
        let color = after
            .color
            .map(|c| match c {
                ColorSetting::Auto => ColorChoice::Auto,
                ColorSetting::Always => ColorChoice::Always,
                ColorSetting::Never => ColorChoice::Never,
            })
            .or(before.color)
            .unwrap_or(ColorChoice::Auto);
        Ok(LibtestOptions {
            filters: args.filter.iter().chain(&after.filter).cloned().collect(),
            exact: before.exact || after.exact,
            skip: before.skip.iter().chain(&after.skip).cloned().collect(),
            list: before.list || after.list,
            ignored: before.ignored || after.ignored,
            include_ignored: before.include_ignored || after.include_ignored,
            format,
            color,
            test_threads: after.test_threads.or(before.test_threads),
            show_output: after.show_output || after.nocapture,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Cli, Command};

    fn options(line: &[&str]) -> Result<LibtestOptions, UsageError> {
        let cli = Cli::try_parse_from(std::iter::once("cargo-tso").chain(line.iter().copied()))
            .expect("cargo tso's own arguments parse");
        match cli.command {
            Command::Test(args) => LibtestOptions::from_args(&args),
            Command::Check(_) | Command::Calibrate(_) => unreachable!(),
        }
    }

    #[test]
    fn flags_after_the_separator_are_libtest_flags() {
        let o = options(&[
            "test",
            "ring",
            "--",
            "--test-threads",
            "1",
            "--exact",
            "--skip",
            "slow",
            "--include-ignored",
            "--nocapture",
            "--format",
            "json",
            "--color",
            "never",
        ])
        .unwrap();
        assert_eq!(o.filters, ["ring"]);
        assert_eq!(o.test_threads, Some(1));
        assert!(o.exact && o.include_ignored && o.show_output);
        assert_eq!(o.skip, ["slow"]);
        assert_eq!(o.format, TestFormat::Json);
        assert_eq!(o.color, ColorChoice::Never);
    }

    #[test]
    fn a_filter_after_the_separator_adds_to_the_one_before() {
        let o = options(&["test", "a", "--", "b"]).unwrap();
        assert_eq!(o.filters, ["a", "b"]);
        let o = options(&["test", "--", "-q"]).unwrap();
        assert!(o.filters.is_empty());
        assert_eq!(o.format, TestFormat::Terse);
    }

    #[test]
    fn help_after_the_separator_is_not_an_error() {
        let error = options(&["test", "--", "--help"]).unwrap_err();
        assert!(error.is_help());
        assert!(error.to_string().contains("--test-threads"), "{error}");
        assert!(!options(&["test", "--", "--bogus"]).unwrap_err().is_help());
    }

    #[test]
    fn unknown_flags_are_usage_errors_not_filters() {
        for bad in [
            &["--bogus"][..],
            &["-x"],
            &["--test-threads"],
            &["--format", "xml"],
            &["--bench"],
        ] {
            let line: Vec<&str> = ["test", "--"].iter().chain(bad).copied().collect();
            assert!(options(&line).is_err(), "{bad:?}");
        }
    }
}
