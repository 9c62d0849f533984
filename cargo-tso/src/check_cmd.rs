//! `cargo tso check FILE [options] [-- clang args]`: one standalone program.

use std::path::{Path, PathBuf};

use serde_json::Value;
use test_support::Language;
use tso_engine::Verdict;

use crate::cli::{CheckArgs, CheckFormat};
use crate::compile::{self, Cache, CompileError, CompileRequest, Toolchain};

use crate::checking::{self, CheckRequest, WantsFences};
use crate::fences::FenceSuggestion;
use crate::ordering_suggestion::OrderingSuggestion;
use crate::pipeline::{self, PipelineError, Request};
use crate::render::{self, failure, figures, json};
use crate::robustness::{Robustness, RobustnessReport};
use crate::run_report::{RunReport, ScClassification, ScRerun, X86Rerun};
use crate::settings::CheckSettings;

/// Exit status: the tool could not run.
pub const EXIT_TOOL_ERROR: i32 = 2;

/// Why `check` could not produce a verdict.
#[derive(Debug, thiserror::Error)]
pub enum CheckCommandError {
    #[error("cannot read {}: {source}", path.display())]
    Missing {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: unknown file type (expected .c, .cc, .cpp, .cxx, .ll or .bc)", .0.display())]
    FileType(PathBuf),
    #[error(transparent)]
    Compile(#[from] CompileError),
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    #[error("{0}")]
    Usage(String),
}

impl CheckCommandError {
    fn kind(&self) -> &'static str {
        match self {
            CheckCommandError::Missing { .. } => "missing-file",
            CheckCommandError::FileType(_) => "unknown-file-type",
            CheckCommandError::Compile(CompileError::Diagnostics { .. }) => "compile-error",
            CheckCommandError::Compile(_) => "toolchain",
            CheckCommandError::Pipeline(PipelineError::Load(_)) => "invalid-module",
            CheckCommandError::Pipeline(_) => "internal",
            CheckCommandError::Usage(_) => "usage",
        }
    }
}

/// Where `check` caches bitcode and writes `tso.h`: `CARGO_TSO_CACHE_DIR`, else the
/// user's cache directory, else the temporary directory.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TSO_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("cargo-tso");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(home).join(".cache").join("cargo-tso");
    }
    std::env::temp_dir().join("cargo-tso")
}

enum Input {
    Source(Language),
    Module,
}

fn classify(path: &Path) -> Result<Input, CheckCommandError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("ll") | Some("bc") => Ok(Input::Module),
        _ => Language::from_path(path)
            .map(Input::Source)
            .ok_or_else(|| CheckCommandError::FileType(path.to_path_buf())),
    }
}

/// Compiles the file if it is C/C++; returns the module to load.
fn prepare(args: &CheckArgs) -> Result<PathBuf, CheckCommandError> {
    let file = &args.file;
    std::fs::metadata(file).map_err(|source| CheckCommandError::Missing {
        path: file.clone(),
        source,
    })?;
    let language = match classify(file)? {
        Input::Module => return Ok(file.clone()),
        Input::Source(language) => language,
    };
    let cache = Cache::new(cache_dir(), Toolchain::locate()?);
    let include = cache.include_dir()?;
    let mut clang_args = compile::base_args(language, "0", &include);
    if language == Language::Cxx {
        clang_args.push("-std=c++17".to_owned());
    }
    clang_args.extend(
        args.include_dirs
            .iter()
            .map(|d| format!("-I{}", d.display())),
    );
    clang_args.extend(args.defines.iter().map(|d| format!("-D{d}")));
    clang_args.extend(args.clang_args.iter().cloned());
    clang_args.extend(compile::source_specific_args(file));
    let source = std::path::absolute(file).unwrap_or_else(|_| file.clone());
    let request = CompileRequest {
        source,
        language,
        args: clang_args,
    };
    let (bitcode, _) = cache.compile(&request)?;
    Ok(bitcode)
}

struct Checked {
    settings: CheckSettings,
    outcome: RunReport,
    sc: Option<ScRerun>,
    /// The re-runs on x86 of a C11 failure.
    x86: Option<X86Rerun>,
    /// `--suggest-fences`: the suggestion, when there was something to fix.
    fences: Option<FenceSuggestion>,
    /// `--robustness`: the comparison of TSO and SC states.
    robustness: Option<RobustnessReport>,
    /// `--suggest-fences` under C11: the ordering suggestion for a failure.
    orderings: Option<OrderingSuggestion>,
}

fn check(args: &CheckArgs) -> Result<Checked, CheckCommandError> {
    let mut settings = CheckSettings::from_args(&args.checking, args.sb_bound);
    if let Some(why) = settings.machine.hangs_unchecked() {
        eprintln!("warning: {why}");
    }
    // `-j` is the cores this check may use; the race search may take one its TSO
    // search leaves idle.
    settings.cores = args.jobs.unwrap_or_else(crate::settings::cores).max(1);
    let search = match args.jobs {
        Some(jobs) => crate::settings::given_search(jobs),
        None => crate::settings::choose_search(settings.cores),
    };
    settings.jobs = search.workers;
    settings.search_why = search.why;
    if settings.machine.dpor {
        // `explore::dpor`: the depth-first search alone; every state for robustness.
        if args.robustness {
            settings.machine.dpor = false;
            settings.search_why += "; --experimental-dpor off: --robustness compares every state";
        } else if settings.jobs > 1 {
            settings.machine.dpor = false;
            settings.search_why +=
                "; --experimental-dpor off: it applies to the depth-first search (-j 1) alone";
        } else {
            settings.search_why += "; --experimental-dpor: dynamic partial-order reduction, \
                                     no sleep sets, no thread symmetry, no race screen";
        }
    }
    settings.show_details = args.verbose;
    if args.robustness && settings.memory_model != crate::settings::MemoryModel::Tso {
        return Err(CheckCommandError::Usage(
            "--robustness compares x86-TSO with SC: it needs --memory-model tso".into(),
        ));
    }
    if args.checking.suggest_fences && settings.memory_model == crate::settings::MemoryModel::Sc {
        return Err(CheckCommandError::Usage(
            "--suggest-fences looks for what forbids a weak-memory failure: it needs --memory-model tso or c11".into(),
        ));
    }
    if args.robustness && settings.reference_machine {
        return Err(CheckCommandError::Usage(
            "--robustness compares states of the delayed-flush machine: drop --reference-machine"
                .into(),
        ));
    }
    let bitcode = prepare(args)?;
    // The --timeout budget covers every search from here on, not the compilation.
    settings.start_clock();
    if args.emit_instrumented.is_some() && settings.memory_model == crate::settings::MemoryModel::Sc
    {
        eprintln!("warning: --emit-instrumented writes nothing under --memory-model sc (there is no TSO instrumentation)");
    }
    // Under C11 every failure gets an answer (an SC failure: that nothing fixes it).
    let c11 = settings.memory_model == crate::settings::MemoryModel::C11;
    let needs_tso = move |_: &RunReport, sc: Option<&ScRerun>, _: Option<&X86Rerun>| {
        c11 || sc.is_some_and(|s| s.classification == ScClassification::NeedsTso)
    };
    let start = std::time::Instant::now();
    let subject = format!("check of `{}`", args.file.display());
    let slow_timeout = std::time::Duration::from_secs_f64(args.slow_timeout);
    let mut checked = crate::slow::watch_while(
        slow_timeout,
        subject,
        "`--races allow`",
        |line| eprintln!("{line}"),
        |progress| {
            let request = CheckRequest {
                run: Request {
                    bitcode: &bitcode,
                    entry: "main",
                    settings: &settings,
                    collect_outcomes: args.outcomes,
                    emit_instrumented: args.emit_instrumented.as_deref(),
                    progress: Some(progress),
                    target: None,
                },
                robustness: args.robustness,
                fences: args
                    .checking
                    .suggest_fences
                    .then_some(&needs_tso as &WantsFences),
            };
            pipeline::on_large_stack(|| checking::check(&request))
        },
    )??;
    // The result line's time is the check's wall time: its searches and what lies
    // between them (loading, instrumenting, replaying the counterexample).
    pipeline::add_other_time(&mut checked.outcome, start.elapsed());
    Ok(Checked {
        settings,
        outcome: checked.outcome,
        sc: checked.sc,
        x86: checked.x86,
        fences: checked.fences,
        robustness: checked.robustness,
        orderings: checked.orderings,
    })
}

pub fn exit_code(verdict: Verdict) -> i32 {
    match verdict {
        Verdict::Pass => 0,
        Verdict::Fail => 1,
        Verdict::Error => EXIT_TOOL_ERROR,
        Verdict::Inconclusive => 3,
    }
}

pub fn run(args: &CheckArgs) -> i32 {
    pipeline::quiet_panics();
    match check(args) {
        Ok(checked) => {
            if let Some(path) = &args.html {
                if let Err(error) = write_html(path, args, &checked) {
                    eprintln!("error: cannot write {}: {error}", path.display());
                    return EXIT_TOOL_ERROR;
                }
            }
            match args.format {
                CheckFormat::Human => print!("{}", human(args, &checked)),
                CheckFormat::Json => println!("{}", json_report(args, &checked)),
            }
            exit_code(checked.outcome.verdict)
        }
        Err(error) => {
            eprintln!("error: {error}");
            if args.format == CheckFormat::Json {
                let settings = CheckSettings::from_args(&args.checking, args.sb_bound);
                let mut failed = json::outcome_fields(
                    &RunReport::tool_error(tso_engine::ErrorKind::Unsupported, String::new()),
                    &settings,
                );
                failed.insert("error".into(), serde_json::json!({ "kind": error.kind(), "message": error.to_string(), "location": null }));
                println!("{}", Value::Object(failed));
            }
            EXIT_TOOL_ERROR
        }
    }
}

/// `--html`: the counterexample (or the verdict, when there is none) as a page.
fn write_html(path: &Path, args: &CheckArgs, checked: &Checked) -> std::io::Result<()> {
    let fences = render::html::verified_fences(checked.fences.as_ref());
    let note = render::orderings::suggestion_human(
        checked.orderings.as_ref(),
        checked.fences.as_ref(),
        &checked.settings,
        checked.robustness.is_some(),
    );
    let title = args.file.display().to_string();
    render::html::write(
        path,
        &render::html::Picture {
            title: &title,
            report: &checked.outcome,
            classification: (checked.sc.as_ref().map(|s| s.classification.sentence()))
                .or(checked.x86.as_ref().map(|x| x.classification.sentence())),
            tso: checked.settings.memory_model == crate::settings::MemoryModel::Tso,
            fences: &fences,
            note: note.as_deref(),
        },
    )
}

fn verdict_line(checked: &Checked) -> String {
    let model = checked.settings.describe();
    let outcome = &checked.outcome;
    if let Some(r) = &checked.robustness {
        match &r.robustness {
            Robustness::Robust => {
                return format!("verdict: pass — robust: every state x86-TSO reaches with empty store buffers is reachable under sequential consistency ({model})")
            }
            Robustness::NotRobust => {
                return format!("verdict: fail — not robust: x86-TSO reaches a state sequential consistency cannot ({model})")
            }
            Robustness::FailsUnderSc => {
                return "verdict: fail — the program fails under sequential consistency already (robustness is not the question)".to_owned()
            }
            Robustness::Undecided(_) => {
                let open = r.cut().map_or(String::new(), |c| format!(": not established: {}", c.list()));
                return format!("verdict: inconclusive — robustness was not decided{open} ({model})")
            }
        }
    }
    match (outcome.verdict, &outcome.error) {
        (Verdict::Pass, _) => format!("verdict: pass — no error is reachable ({model})"),
        (Verdict::Fail, Some(f)) => format!("verdict: fail — {} ({model})", f.kind),
        (Verdict::Fail, None) => format!("verdict: fail ({model})"),
        (Verdict::Inconclusive, _) => match &outcome.cut {
            Some(cut) => format!(
                "verdict: inconclusive — a limit stopped the {}; not established: {} ({model})",
                cut.phase.describe(),
                cut.list()
            ),
            None => format!("verdict: inconclusive — a limit stopped the search ({model})"),
        },
        (Verdict::Error, _) => {
            format!("verdict: error — the program could not be checked ({model})")
        }
    }
}

fn human(args: &CheckArgs, checked: &Checked) -> String {
    let outcome = &checked.outcome;
    let mut out = verdict_line(checked);
    out.push('\n');
    out.push_str(&failure::races_block(outcome));
    if outcome.verdict != Verdict::Pass {
        out.push_str(&failure::details(
            outcome,
            checked.sc.as_ref(),
            checked.x86.as_ref(),
            false,
        ));
    }
    if let Some(r) = &checked.robustness {
        if r.robustness == Robustness::NotRobust {
            out.push_str(&render::fences::observations_human(&r.observations));
        }
        if matches!(r.robustness, Robustness::Robust | Robustness::NotRobust) {
            out.push_str(&format!(
                "robustness: {} TSO states ({} with drained buffers compared) against {} SC states\n",
                r.tso_states, r.compared, r.sc_states
            ));
        }
    }
    if let Some(text) = render::orderings::suggestion_human(
        checked.orderings.as_ref(),
        checked.fences.as_ref(),
        &checked.settings,
        checked.robustness.is_some(),
    ) {
        out.push_str(&text);
    } else if args.checking.suggest_fences && outcome.verdict == Verdict::Fail {
        out.push_str(no_suggestion(checked));
    }
    if args.show_output && !outcome.output.is_empty() && outcome.trace.is_empty() {
        out.push_str(&failure::output_block(&outcome.output));
    }
    if args.outcomes {
        out.push_str(&format!("outcomes ({}):\n", outcome.outcomes.len()));
        for o in &outcome.outcomes {
            out.push_str("  ");
            out.push_str(&o.trim_end_matches('\n').replace('\n', "\\n"));
            out.push('\n');
        }
    }
    out.push_str(&figures::line(&outcome.figures));
    out.push('\n');
    if args.verbose {
        out.push_str(&figures::phases_line(&outcome.figures));
        out.push('\n');
        out.push_str(&figures::symmetry_line(&outcome.figures));
        out.push('\n');
        out.push_str(&figures::awaits_line(&outcome.figures));
        out.push('\n');
        out.push_str(&format!("search: {}\n", checked.settings.search_why));
        if let Some(screen) = &outcome.race_screen {
            out.push_str(&screen.describe());
            out.push('\n');
        }
        if let Some(placement) = &outcome.race_search_placement {
            out.push_str(&format!("race search: {placement}\n"));
        }
        out.push_str(&crate::render::unmodelled_block(&outcome.unmodelled, ""));
    }
    out
}

/// Why `--suggest-fences` printed no suggestion for a failure.
fn no_suggestion(checked: &Checked) -> &'static str {
    match (&checked.robustness, checked.sc.as_ref().map(|s| s.classification)) {
        (Some(_), _) => "fence suggestion: none — the robustness check did not find a TSO-only behaviour to forbid\n",
        (None, Some(ScClassification::FailsUnderSc)) => {
            "fence suggestion: none — the failure also happens under sequential consistency, so no fence can fix it\n"
        }
        _ => "fence suggestion: none — the SC re-run did not decide whether the failure needs TSO\n",
    }
}

fn json_report(args: &CheckArgs, checked: &Checked) -> Value {
    let mut map = json::outcome_fields(&checked.outcome, &checked.settings);
    map.insert("file".into(), args.file.display().to_string().into());
    if args.outcomes {
        map.insert(
            "outcomes".into(),
            checked.outcome.outcomes.iter().cloned().collect(),
        );
    }
    map.insert(
        "sc_rerun".into(),
        checked.sc.as_ref().map_or(Value::Null, json::sc_rerun),
    );
    if let Some(x86) = &checked.x86 {
        map.insert("x86_rerun".into(), json::x86_rerun(x86));
    }
    if args.checking.suggest_fences {
        let suggestion =
            render::orderings::suggestion_json(checked.orderings.as_ref(), checked.fences.as_ref());
        map.insert("fence_suggestion".into(), suggestion);
    }
    if let Some(r) = &checked.robustness {
        let result = match &r.robustness {
            Robustness::Robust => "robust",
            Robustness::NotRobust => "not-robust",
            Robustness::FailsUnderSc => "fails-under-sc",
            Robustness::Undecided(_) => "undecided",
        };
        let robust = match &r.robustness {
            Robustness::Robust => Value::Bool(true),
            Robustness::NotRobust => Value::Bool(false),
            _ => Value::Null,
        };
        map.insert(
            "robustness".into(),
            serde_json::json!({
                "robust": robust,
                "result": result,
                "sc_states": r.sc_states,
                "tso_states": r.tso_states,
                "compared": r.compared,
                "observations": render::fences::observations_json(&r.observations),
            }),
        );
    }
    Value::Object(map)
}
