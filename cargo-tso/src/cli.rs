//! The command line, as clap types. `cargo` runs us as `cargo-tso tso ARGS`; the
//! extra `tso` is removed before parsing (see [`crate::run`]).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "cargo tso",
    bin_name = "cargo tso",
    version,
    about = "Model-check C and C++ code under x86-TSO"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check one standalone C/C++ program (with main) or LLVM module.
    Check(CheckArgs),
    /// Run the C/C++ tests declared by the packages' build scripts.
    Test(TestArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MemoryModel {
    /// Sequential consistency: the program as written, no store buffers.
    Sc,
    /// x86-TSO: per-thread FIFO store buffers.
    Tso,
}

impl MemoryModel {
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryModel::Sc => "sc",
            MemoryModel::Tso => "tso",
        }
    }
}

/// How to model-check, shared by `check` and `test`.
#[derive(Debug, Clone, Args)]
pub struct CheckingArgs {
    /// Memory model to explore.
    #[arg(long, value_enum, default_value = "tso")]
    pub memory_model: MemoryModel,
    /// Stop as inconclusive after storing this many states.
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Stop as inconclusive when the checker uses this much memory (e.g. 512M, 2G).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Stop as inconclusive after this many seconds.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub timeout: Option<f64>,
    /// Instructions a thread may run without a visible action before it is reported
    /// as non-terminating.
    #[arg(long, value_name = "N")]
    pub max_steps: Option<u64>,
    /// Instrument accesses to local variables whose address never escapes (measurement).
    #[arg(long)]
    pub no_static_locals: bool,
    /// Send accesses to objects no other thread can reach through the buffers (measurement).
    #[arg(long)]
    pub no_dynamic_bypass: bool,
    /// Use the plain reference TSO machine instead of delayed flushing (measurement).
    #[arg(long)]
    pub reference_machine: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Human,
    Json,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The program: .c, .cc/.cpp/.cxx (C++17 by default), .ll or .bc.
    pub file: PathBuf,
    #[command(flatten)]
    pub checking: CheckingArgs,
    /// Store-buffer bound: unflushed stores per thread; 0 means unbounded.
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub sb_bound: u32,
    /// Define a macro, as with clang.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Add an include directory, as with clang.
    #[arg(short = 'I', value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: CheckFormat,
    /// Print what the program printed, also when no error is found.
    #[arg(long)]
    pub show_output: bool,
    /// Show the checker's own steps in traces too (fences around library calls,
    /// copies of thread handles).
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Print the distinct outputs of all complete executions (litmus outcomes).
    #[arg(long)]
    pub outcomes: bool,
    /// Write the TSO-instrumented module as LLVM text to this file.
    #[arg(long, value_name = "OUT.ll")]
    pub emit_instrumented: Option<PathBuf>,
    /// Extra arguments for clang, after `--`.
    #[arg(last = true, value_name = "CLANG_ARGS")]
    pub clang_args: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TestFormat {
    Pretty,
    Terse,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Run only tests whose names contain one of these strings.
    #[arg(value_name = "FILTER")]
    pub filters: Vec<String>,
    /// Filters and --skip match whole test names.
    #[arg(long)]
    pub exact: bool,
    /// Skip tests whose names contain this string (repeatable).
    #[arg(long, value_name = "FILTER")]
    pub skip: Vec<String>,
    /// List the tests instead of running them.
    #[arg(long)]
    pub list: bool,
    /// Run only the ignored tests.
    #[arg(long, conflicts_with = "include_ignored")]
    pub ignored: bool,
    /// Run ignored tests too.
    #[arg(long)]
    pub include_ignored: bool,
    /// Test only these packages.
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    pub packages: Vec<String>,
    /// Test every package of the workspace.
    #[arg(long)]
    pub workspace: bool,
    /// The Cargo.toml to use.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "pretty")]
    pub format: TestFormat,
    /// Terse output: one character per test.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Print compilation (compiled/cached) and figures for every test.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// When to color the output.
    #[arg(long, value_enum, default_value = "auto")]
    pub color: ColorChoice,
    /// Tests run at the same time (default: number of cores).
    #[arg(long, value_name = "N")]
    pub test_threads: Option<usize>,
    #[command(flatten)]
    pub checking: CheckingArgs,
    /// Store-buffer bound(s): N, or a list like 1,2,4,32,0 to compare bounds; 0 = unbounded.
    #[arg(long, value_name = "N[,N...]", default_value = "32", value_parser = parse_bounds)]
    pub sb_bound: SbBounds,
    /// Optimisation level the tests are compiled with.
    #[arg(short = 'O', long = "opt-level", value_name = "LEVEL", default_value = "0", value_parser = ["0", "1", "2", "3", "s", "z"])]
    pub opt_level: String,
}

/// One or more store-buffer bounds (more than one asks for a sweep).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SbBounds(pub Vec<u32>);

fn parse_bounds(text: &str) -> Result<SbBounds, String> {
    let mut bounds = Vec::new();
    for part in text.split(',') {
        let bound = part.trim().parse::<u32>().map_err(|_| {
            format!("`{part}` is not a store-buffer bound (a number, 0 = unbounded)")
        })?;
        if !bounds.contains(&bound) {
            bounds.push(bound);
        }
    }
    Ok(SbBounds(bounds))
}

fn parse_size(text: &str) -> Result<u64, String> {
    tso_engine::resources::parse_bytes(text)
        .ok_or_else(|| format!("`{text}` is not a size (e.g. 512M, 2G)"))
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 => Ok(secs),
        _ => Err(format!("`{text}` is not a positive number of seconds")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_list_keeps_order_and_drops_duplicates() {
        assert_eq!(
            parse_bounds("1,2,4,32,0,2"),
            Ok(SbBounds(vec![1, 2, 4, 32, 0]))
        );
        assert!(parse_bounds("1,x").is_err());
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
