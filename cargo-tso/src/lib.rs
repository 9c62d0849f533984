//! cargo-tso: the `cargo tso` command as a library; `main.rs` only calls [`run`].
//!
//! - [`calibrate`]: `cargo tso calibrate` (which search is faster on this machine);
//! - [`cli`]: the command line (clap);
//! - [`compile`]: clang-19 → bitcode, cached;
//! - [`pipeline`]: load → instrument → translate → check, one run;
//! - [`checking`]: one check and its follow-ups (SC re-run, fences, robustness),
//!   as one call with a request;
//! - [`check_cmd`]: `cargo tso check`;
//! - [`test_cmd`]: `cargo tso test` (discovery, runner, reporters, bound sweep);
//! - [`fences`]: `--suggest-fences` (search and minimisation of fence placements);
//! - [`ordering_suggestion`]: `--suggest-fences` under C11 (stronger memory orders
//!   or fences, each candidate checked on the edited program);
//! - [`robustness`]: `--robustness` (TSO states with empty buffers vs SC states);
//! - [`render`]: traces, source snippets, figures and JSON shared by both;
//! - [`slow`]: the notices of a check or test that runs long, shared by both.

mod calibrate;
mod check_cmd;
mod checking;
mod cli;
mod compile;
mod fences;
mod memory_use;
mod ordering_suggestion;
mod pipeline;
mod race_beside;
mod render;
mod robustness;
mod run_report;
mod settings;
mod slow;
mod test_cmd;

use std::ffi::OsString;

use clap::Parser;

use cli::{Cli, Command};

/// Runs the command line `args` (program name first) and returns the exit status.
pub fn run(args: impl IntoIterator<Item = OsString>) -> i32 {
    let mut args: Vec<OsString> = args.into_iter().collect();
    // `cargo tso ...` runs `cargo-tso tso ...`.
    if args.get(1).is_some_and(|a| a == "tso") {
        args.remove(1);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            // Help and version are not errors; every usage error is "could not run".
            return if error.use_stderr() {
                check_cmd::EXIT_TOOL_ERROR
            } else {
                0
            };
        }
    };
    match cli.command {
        Command::Check(args) => check_cmd::run(&args),
        Command::Test(args) => test_cmd::run(&args),
        Command::Calibrate(args) => calibrate::run(&args),
    }
}

/// Counts each thread's heap, so a test reports the memory its own exploration used.
#[global_allocator]
static ALLOCATOR: memory_use::CountingAllocator = memory_use::CountingAllocator;
