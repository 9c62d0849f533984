//! The command line, as clap types. `cargo` runs us as `cargo-tso tso ARGS`; the
//! extra `tso` is removed before parsing (see [`crate::run`]).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::settings::MemoryModel;

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
    Check(Box<CheckArgs>),
    /// Run the C/C++ tests declared by the packages' build scripts.
    Test(Box<TestArgs>),
    /// Measure which search is faster on this machine, for `check` and `test` to use
    /// when `-j` is not given.
    Calibrate(CalibrateArgs),
}

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Breadth-first workers to compare with the depth-first search on one.
    /// Default: the machine's cores.
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Timed runs of each search; the medians are compared.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub runs: usize,
    /// The program to time (it must pass). Default: a built-in lock test of three
    /// threads that takes about a second.
    #[arg(long, value_name = "FILE")]
    pub program: Option<PathBuf>,
}

/// `--memory-model` (the domain's type is [`MemoryModel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MemoryModelArg {
    /// Sequential consistency: the program as written, no store buffers.
    Sc,
    /// x86-TSO: per-thread FIFO store buffers.
    Tso,
    /// C11/C++11 (RC11): what ARM and POWER may do to portable C, without load
    /// buffering.
    C11,
}

impl From<MemoryModelArg> for MemoryModel {
    fn from(arg: MemoryModelArg) -> MemoryModel {
        match arg {
            MemoryModelArg::Sc => MemoryModel::Sc,
            MemoryModelArg::Tso => MemoryModel::Tso,
            MemoryModelArg::C11 => MemoryModel::C11,
        }
    }
}

/// Where the race search of a TSO check runs (`--race-search-order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RaceSearchOrder {
    /// Beside the TSO run when the run's cores leave one idle, else after it.
    Auto,
    /// After the TSO run.
    After,
    /// Beside the TSO run, on a thread of its own, idle core or not.
    Beside,
}

/// What a data race does (`--races`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RacesArg {
    /// Do not look for data races.
    Allow,
    /// Report data races beside the verdict, which they do not change.
    Warn,
    /// A data race fails the check (kind `data-race`).
    Deny,
}

impl RacesArg {
    pub fn policy(self) -> tso_engine::RacePolicy {
        use tso_engine::RacePolicy;
        match self {
            RacesArg::Allow => RacePolicy::Allow,
            RacesArg::Warn => RacePolicy::Warn,
            RacesArg::Deny => RacePolicy::Deny,
        }
    }
}

/// How to model-check, shared by `check` and `test`.
#[derive(Debug, Clone, Args)]
pub struct CheckingArgs {
    /// Memory model to explore (default: tso). `test`: only the runs under this model
    /// of tests that declare their models in build.rs.
    #[arg(long, value_enum)]
    pub memory_model: Option<MemoryModelArg>,
    /// Under c11: most values kept per memory location; a run that would drop one a
    /// thread can still read is inconclusive (0: unbounded).
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub history_bound: u32,
    /// Stop as inconclusive after storing this many states (0: no limit).
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Stop as inconclusive when the checker uses this much memory (e.g. 512M, 2G; 0:
    /// no limit but the machine's). `test`: per test, default 70% of the machine's
    /// memory divided by --test-threads.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Stop as inconclusive after this many seconds (0: no limit). `test`: per test,
    /// default 600.
    #[arg(long, value_name = "SECS", value_parser = parse_budget_seconds)]
    pub timeout: Option<f64>,
    /// Instructions a thread may run without a visible action (a loop that never
    /// repeats a state, such as a counter that keeps growing) before the search stops
    /// as inconclusive [default: 100000000].
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
    /// Condition waits return only when signalled (measurement; POSIX allows
    /// spurious wake-ups, which are explored by default).
    #[arg(long)]
    pub no_spurious_wakeups: bool,
    /// Switch off partial-order reduction (sleep sets; measurement: the same states
    /// and verdicts, more transitions).
    #[arg(long)]
    pub no_por: bool,
    /// Experimental, not proved on the differential suites: partial-order reduction
    /// by persistent sets (stores fewer states) instead of sleep sets. Hidden.
    #[arg(long, hide = true)]
    pub experimental_persistent_sets: bool,
    /// Switch off the join-array rule of thread symmetry: by default the states that
    /// differ only in which worker sits in which slot of `main`'s array of joined
    /// handles are stored once, where the program's shape makes that sound
    /// (`--no-symmetry` switches it off too).
    #[arg(long)]
    pub no_join_symmetry: bool,
    /// Experimental, off by default: dynamic partial-order reduction with the state
    /// cache in the depth-first search, instead of sleep sets and thread symmetry.
    /// Hidden.
    #[arg(long, hide = true)]
    pub experimental_dpor: bool,
    /// With race tracking, keep in the state every recorded read of heap memory, also
    /// those no thread which has not seen them can still write (by the threads' static
    /// futures), which are left out by default: more states, the same verdicts and
    /// races (measurement). Hidden.
    #[arg(long, hide = true)]
    pub no_race_read_futures: bool,
    /// Under TSO, look for races with access histories alone, without first searching
    /// for two threads whose next accesses conflict (the race screen): the same
    /// verdicts and races, slower (measurement, tests). Hidden.
    #[arg(long, hide = true)]
    pub no_race_screen: bool,
    /// Under TSO with races looked for: where the race search runs when it is needed.
    /// `auto` (the default): beside the TSO run when the run's cores leave one idle,
    /// else after it; the same verdicts and reports either way (tests). Hidden.
    #[arg(long, hide = true, value_enum, default_value_t = RaceSearchOrder::Auto)]
    pub race_search_order: RaceSearchOrder,
    /// Canonicalise every state afresh, never from its parent's canonical form: the
    /// same states and verdicts, slower (measurement). Hidden.
    #[arg(long, hide = true)]
    pub no_incremental_canon: bool,
    /// Canonicalise every state canonicalised from its parent's form afresh too, and
    /// stop with an internal error if the two differ (tests). Hidden.
    #[arg(long, hide = true)]
    pub check_incremental_canon: bool,
    /// Do not track uninitialised bits (no `uninitialized` verdicts; measurement).
    #[arg(long)]
    pub no_definedness: bool,
    /// Store every state as it is, not up to a permutation of interchangeable
    /// threads (measurement; thread symmetry is on by default).
    #[arg(long)]
    pub no_symmetry: bool,
    /// Run spin loops as written: a thread whose loop iteration only read and found
    /// nothing to do stays enabled, instead of waiting for a write (measurement; awaits
    /// are on by default).
    #[arg(long)]
    pub no_awaits: bool,
    /// A loop no other thread can end stops that thread instead of failing as
    /// non-terminating (for monitor threads that loop forever on purpose).
    #[arg(long)]
    pub allow_nontermination: bool,
    /// Data races (C11 races on non-atomic memory): `warn` reports them beside the
    /// verdict, `deny` makes a race fail, `allow` does not look for them [default:
    /// warn, or what the crate's build script says; deny under c11].
    #[arg(long, value_enum, value_name = "POLICY")]
    pub races: Option<RacesArg>,
    /// For a failure that needs TSO (or a robustness violation): search fence
    /// placements, verify them and minimise them. Under c11: the weakest verified
    /// stronger memory orders (or fences) that make the check pass.
    #[arg(long)]
    pub suggest_fences: bool,
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
    /// Workers exploring the state space. One worker searches depth-first; more search
    /// breadth-first, level by level, which needs more memory. Default: one, unless the
    /// breadth-first search on all cores was measured faster for this many cores, by
    /// `cargo tso calibrate` on this machine or else by the project (`-v` says what was
    /// chosen). A core of the N the search leaves idle runs the race search beside it.
    /// The states, verdict and counterexample are the same for any number.
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
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
    /// Say on stderr when the check has been running for more than this many seconds
    /// (and again at every multiple), with the search it is in.
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = parse_seconds)]
    pub slow_timeout: f64,
    /// Write the TSO-instrumented module as LLVM text to this file.
    #[arg(long, value_name = "OUT.ll")]
    pub emit_instrumented: Option<PathBuf>,
    /// Write the counterexample as a self-contained HTML page (a sequence diagram of
    /// threads, store buffers and memory, beside the trace) to this file.
    #[arg(long, value_name = "OUT.html")]
    pub html: Option<PathBuf>,
    /// Check that every state x86-TSO reaches with empty store buffers is reachable
    /// under sequential consistency; exit 1 when not.
    #[arg(long)]
    pub robustness: bool,
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

/// libtest's flags, accepted before `--` as well as after it (where
/// `libtest_mimic::Arguments` parses them, see `test_cmd::options`).
#[derive(Debug, Clone, Default, Args)]
pub struct LibtestFlags {
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
    /// Output format (default pretty).
    #[arg(long, value_enum)]
    pub format: Option<TestFormat>,
    /// Terse output: one character per test.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// When to color the output (default auto).
    #[arg(long, value_enum)]
    pub color: Option<ColorChoice>,
    /// Tests run at the same time (default: number of cores).
    #[arg(long, value_name = "N")]
    pub test_threads: Option<usize>,
}

/// cargo's package, feature and profile selection, passed to the cargo command that
/// runs the build scripts, so they see the features and profile chosen here.
#[derive(Debug, Clone, Default, Args)]
pub struct CargoFlags {
    /// Test only these packages.
    #[arg(short = 'p', long = "package", value_name = "SPEC")]
    pub packages: Vec<String>,
    /// Test every package of the workspace.
    #[arg(long)]
    pub workspace: bool,
    /// Leave these packages out (with --workspace).
    #[arg(long, value_name = "SPEC", requires = "workspace")]
    pub exclude: Vec<String>,
    /// The Cargo.toml to use.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Features to activate (space or comma separated, repeatable).
    #[arg(short = 'F', long, value_name = "FEATURES")]
    pub features: Vec<String>,
    /// Activate every feature of the selected packages.
    #[arg(long)]
    pub all_features: bool,
    /// Do not activate the `default` feature.
    #[arg(long)]
    pub no_default_features: bool,
    /// Build scripts run for the release profile (cc then uses its opt level).
    #[arg(short = 'r', long, conflicts_with = "profile")]
    pub release: bool,
    /// Build scripts run for this profile.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Directory for all generated artifacts.
    #[arg(long, value_name = "DIR")]
    pub target_dir: Option<PathBuf>,
    /// Require Cargo.lock to be up to date.
    #[arg(long)]
    pub locked: bool,
    /// Run without accessing the network.
    #[arg(long)]
    pub offline: bool,
    /// Both --locked and --offline.
    #[arg(long)]
    pub frozen: bool,
    /// Parallel jobs for building (cargo's -j).
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<String>,
}

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Run only tests whose names contain this string.
    #[arg(value_name = "TESTNAME")]
    pub filter: Option<String>,
    #[command(flatten)]
    pub libtest: LibtestFlags,
    #[command(flatten)]
    pub cargo: CargoFlags,
    /// Print compilation (compiled/cached) and figures for every test.
    #[arg(short = 'v', long)]
    pub verbose: bool,
    /// Run every test even when some fail (the default, as with `cargo test`).
    #[arg(long, conflicts_with = "fail_fast")]
    pub no_fail_fast: bool,
    /// Start no new test after the first failure.
    #[arg(long)]
    pub fail_fast: bool,
    /// Run only this machine's share of the tests: `count:K/N` (every Nth test by
    /// name) or `hash:K/N` (by a hash of the name, stable when tests are added).
    #[arg(long, value_name = "count:K/N|hash:K/N", value_parser = crate::test_cmd::partition::Partition::parse)]
    pub partition: Option<crate::test_cmd::partition::Partition>,
    /// Also write the results as JUnit XML to this file.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Write one HTML page per failing or expected-failing test into this directory:
    /// its counterexample as a sequence diagram beside the trace.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Say when a test has been running for more than this many seconds (and again at
    /// every multiple).
    #[arg(long, value_name = "SECS", default_value = "60", value_parser = parse_seconds)]
    pub slow_timeout: f64,
    #[command(flatten)]
    pub checking: CheckingArgs,
    /// Store-buffer bound(s): N, or a list like 1,2,4,32,0 to compare bounds; 0 =
    /// unbounded [default: the build script's `sb_bound`, else 32].
    #[arg(long, value_name = "N[,N...]", value_parser = parse_bounds)]
    pub sb_bound: Option<SbBounds>,
    /// A test that a budget (time, memory, states, steps) stops is reported as
    /// inconclusive without failing the run.
    #[arg(long)]
    pub allow_inconclusive: bool,
    /// Optimisation level for every test, instead of the level its `cc::Build` uses.
    #[arg(short = 'O', long = "opt-level", value_name = "LEVEL", value_parser = ["0", "1", "2", "3", "s", "z"])]
    pub opt_level: Option<String>,
    /// libtest's arguments, after `--`: filters, --exact, --skip, --test-threads, ...
    #[arg(last = true, value_name = "LIBTEST_ARGS", allow_hyphen_values = true)]
    pub libtest_args: Vec<String>,
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

/// Seconds, or 0 for no limit.
fn parse_budget_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs >= 0.0 => Ok(secs),
        _ => Err(format!("`{text}` is not a number of seconds (0: no limit)")),
    }
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
