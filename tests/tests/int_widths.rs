//! Integers of every width from 1 to 256 bits against the CPU: generated programs
//! (tests/src/gen_widths.rs) compute with `_BitInt(N)` operands read from memory and
//! print every result in hexadecimal. clang-19's native build at -O0 and -O2 is the
//! oracle (its own code generation, not the checker's arithmetic); `cargo tso check
//! --show-output` must print the same under SC and TSO at both levels and pass.
//!
//! `TSO_SOAK=N` runs N rounds of fresh operands instead of 1; `TSO_SEED=S` shifts them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use tso_suite::binary::run_limited;
use tso_suite::check::{CheckResult, CheckRun, Model};
use tso_suite::gen_widths;

/// Widths per program: 256 widths in eight programs keep each check short.
const CHUNK: u32 = 32;
const OPT_LEVELS: [&str; 2] = ["-O0", "-O2"];

/// The native output of `source` at `opt` (`-mcx16`: 16-byte atomics inline, as the
/// checker models them, not as calls into libatomic).
fn native(source: &Path, opt: &str, dir: &Path) -> String {
    let exe = dir.join(format!(
        "{}{opt}",
        source.file_stem().and_then(|s| s.to_str()).unwrap_or("p")
    ));
    let out = Command::new("clang-19")
        .args(["-w", "-mcx16", opt, "-o"])
        .arg(&exe)
        .arg(source)
        .output()
        .unwrap_or_else(|e| panic!("cannot run clang-19: {e}"));
    assert!(
        out.status.success(),
        "clang-19 {opt} {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let run_dir = dir.join(format!("run-{}{opt}", exe.display().to_string().len()));
    let _ = std::fs::create_dir_all(&run_dir);
    let run = run_limited(&mut Command::new(&exe), Duration::from_secs(20), &run_dir);
    assert!(
        run.code == Some(0) && !run.timed_out,
        "native {} {opt} failed: {}",
        exe.display(),
        run.text()
    );
    run.stdout
}

#[test]
fn every_width_from_1_to_256_computes_what_the_cpu_computes() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "int_widths");
    let mut programs: Vec<(u64, PathBuf, String)> = Vec::new();
    for seed in tso_suite::soak_seeds(1) {
        for first in (1..=256).step_by(CHUNK as usize) {
            let widths: Vec<u32> = (first..first + CHUNK).collect();
            let path = dir.join(format!("widths_{seed}_{first}.c"));
            std::fs::write(
                &path,
                gen_widths::program(seed * 1000 + first as u64, &widths),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            // The oracle: both native builds, which must agree (else the generated
            // program has undefined behaviour and proves nothing).
            let o0 = native(&path, "-O0", &dir);
            let o2 = native(&path, "-O2", &dir);
            assert_eq!(o0, o2, "{}: native -O0 and -O2 differ", path.display());
            let pairs = gen_widths::OPERANDS * gen_widths::OPERANDS;
            assert_eq!(o0.lines().count(), (CHUNK * pairs) as usize);
            programs.push((seed, path, o0));
        }
    }
    let runs: Vec<(&(u64, PathBuf, String), &str, Model)> = programs
        .iter()
        .flat_map(|p| {
            OPT_LEVELS
                .iter()
                .flat_map(move |&opt| [Model::Sc, Model::Tso].map(move |m| (p, opt, m)))
        })
        .collect();
    let problems: Vec<String> =
        tso_suite::parallel::map(&runs, |((_, path, expected), opt, model)| {
            let run = CheckRun::new(path, *model)
                .show_output()
                .clang_args(&[*opt])
                .run();
            difference(&format!("{} {opt}", path.display()), *model, &run, expected)
        })
        .into_iter()
        .flatten()
        .collect();
    assert_no_difference(&problems, runs.len());
}

/// How a check of `what` under `model` differs from the native `expected` output (it
/// must pass and print exactly that), if it does.
fn difference(what: &str, model: Model, run: &CheckResult, expected: &str) -> Option<String> {
    let output = run.output().unwrap_or("");
    if run.exit == Some(0) && run.verdict() == Some("pass") && output == expected {
        return None;
    }
    let first_difference = output
        .lines()
        .zip(expected.lines())
        .find(|(got, want)| got != want)
        .map(|(got, want)| format!("\n  checker: {got}\n  native:  {want}"))
        .unwrap_or_default();
    Some(format!(
        "{what} {}: exit {:?}, verdict {:?}, error {:?}{first_difference}",
        model.as_str(),
        run.exit,
        run.verdict(),
        run.error_message(),
    ))
}

fn assert_no_difference(problems: &[String], checks: usize) {
    assert!(
        problems.is_empty(),
        "{} of {checks} checks differ from native execution:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// The integer operations C cannot write (`llvm.sshl.sat`, `llvm.ushl.sat`, funnel
/// shifts, `llvm.bitreverse`, `llvm.bswap`, `atomicrmw` and `cmpxchg`), in LLVM IR
/// linked to a C driver, at every width from 1 to 256: the native build of the linked
/// module is the oracle.
#[test]
fn ir_only_operations_at_every_width_compute_what_the_cpu_computes() {
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "int_widths_ir");
    let mut modules: Vec<(PathBuf, String)> = Vec::new();
    for seed in tso_suite::soak_seeds(1) {
        for first in (1..=256).step_by(CHUNK as usize) {
            let widths: Vec<u32> = (first..first + CHUNK).collect();
            let (c, ir) = gen_widths::ir_program(seed * 1000 + first as u64, &widths);
            let stem = dir.join(format!("ir_widths_{seed}_{first}"));
            let (c_path, ir_path) = (stem.with_extension("c"), stem.with_extension("ops.ll"));
            std::fs::write(&c_path, c).unwrap_or_else(|e| panic!("{}: {e}", c_path.display()));
            std::fs::write(&ir_path, ir).unwrap_or_else(|e| panic!("{}: {e}", ir_path.display()));
            let mut outputs = Vec::new();
            for opt in OPT_LEVELS {
                let driver = stem.with_extension(format!("driver{opt}.ll"));
                let linked = stem.with_extension(format!("linked{opt}.ll"));
                tool(
                    "clang-19",
                    &["-w", opt, "-S", "-emit-llvm", "-o"],
                    &driver,
                    &[&c_path],
                );
                tool("llvm-link-19", &["-S", "-o"], &linked, &[&driver, &ir_path]);
                let out = native(&linked, opt, &dir);
                let pairs = gen_widths::OPERANDS * gen_widths::OPERANDS;
                assert_eq!(out.lines().count(), (CHUNK * pairs) as usize);
                outputs.push(out.clone());
                modules.push((linked, out));
            }
            assert_eq!(
                outputs[0],
                outputs[1],
                "{}: native -O0 and -O2 differ",
                stem.display()
            );
        }
    }
    let runs: Vec<(&(PathBuf, String), Model)> = modules
        .iter()
        .flat_map(|m| [Model::Sc, Model::Tso].map(move |model| (m, model)))
        .collect();
    let problems: Vec<String> = tso_suite::parallel::map(&runs, |((path, expected), model)| {
        let run = CheckRun::new(path, *model).show_output().run();
        difference(&path.display().to_string(), *model, &run, expected)
    })
    .into_iter()
    .flatten()
    .collect();
    assert_no_difference(&problems, runs.len());
}

/// Runs `program args out inputs…`, which must succeed.
fn tool(program: &str, args: &[&str], out: &Path, inputs: &[&Path]) {
    let run = Command::new(program)
        .args(args)
        .arg(out)
        .args(inputs)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    assert!(
        run.status.success(),
        "{program} {}: {}",
        out.display(),
        String::from_utf8_lossy(&run.stderr)
    );
}
