//! What one model-checking run is asked to do, independent of where the options
//! came from (`check` or `test`).

use std::time::{Duration, Instant};

use tso_engine::{Limits, MachineOptions};

use crate::cli::CheckingArgs;
use crate::run_report::Property;

/// The memory model a run explores (`--memory-model`): the build script's type, so
/// a test's declared models need no conversion.
pub use test_support::MemoryModel;

#[derive(Debug, Clone)]
pub struct CheckSettings {
    pub memory_model: MemoryModel,
    /// Unflushed stores per thread; 0 = unbounded. Ignored under SC.
    pub sb_bound: u32,
    /// Messages kept per location under C11; 0 = unbounded.
    pub history_bound: u32,
    pub static_locals: bool,
    pub dynamic_bypass: bool,
    pub reference_machine: bool,
    pub limits: Limits,
    pub machine: MachineOptions,
    /// Keep the checker's bookkeeping steps in traces (`-v`).
    pub show_details: bool,
    /// `--suggest-fences`: search fences for a failure that needs TSO.
    pub suggest_fences: bool,
    /// Workers exploring one state space.
    pub jobs: usize,
    /// How `jobs` was chosen, for `-v`.
    pub search_why: String,
    /// `--races` was given: it wins over a build script's `Tests::races`.
    pub races_explicit: bool,
    /// `cargo tso test`: the heap this run's exploration may hold (its own account,
    /// `memory_use`, not the process's resident set, which tests side by side share).
    pub test_memory: Option<u64>,
    /// Set when the user interrupts the run (Ctrl-C, SIGTERM): the search stops.
    pub interrupt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The cores this run may use (`check`: the machine's; `test`: the job's share).
    pub cores: usize,
    /// `--race-search-order`.
    pub race_search_order: RaceSearchOrder,
}

pub use crate::cli::RaceSearchOrder;

/// The machine's cores (1 if unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The wall time of the breadth-first search on N workers ÷ that of the depth-first
/// search on one, for each N it was measured for on a machine with N cores: 2 workers
/// took 10.8 s against 5.2 s on the reader-writer spinlock of `tso-bench --defaults`
/// (bench/PERFORMANCE.md, "The default run").
/// The breadth-first search rebuilds each state it expands from the store, which costs
/// a third more instructions per state, and on a machine whose cores also run other
/// work its workers wait for each other at every level.
const BREADTH_FIRST_MEASURED: &[(usize, f64)] = &[(2, 2.08)];

/// How one run searches when `-j` does not say.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchChoice {
    /// 1: depth-first; more: breadth-first on that many workers.
    pub workers: usize,
    /// What was chosen and why, for `-v`.
    pub why: String,
}

/// Where a ratio in [`choose_search`] came from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Measured {
    /// `cargo tso calibrate` on this machine.
    Here(f64),
    /// [`BREADTH_FIRST_MEASURED`], on the machine the table was taken on.
    Elsewhere(f64),
    Never,
}

/// The search for a run that may use `available` cores: the breadth-first search on
/// all of them only where it was measured faster than the depth-first search on one,
/// by `cargo tso calibrate` on this machine or else in [`BREADTH_FIRST_MEASURED`];
/// otherwise depth-first on one worker.
pub fn choose_search(available: usize) -> SearchChoice {
    static CALIBRATION: std::sync::OnceLock<Option<crate::calibrate::Calibration>> =
        std::sync::OnceLock::new();
    let here = CALIBRATION
        .get_or_init(crate::calibrate::load)
        .as_ref()
        .and_then(|c| c.measurements.iter().find(|m| m.workers == available))
        .map(|m| m.breadth_first_over_depth_first);
    let elsewhere = BREADTH_FIRST_MEASURED
        .iter()
        .find(|(n, _)| *n == available)
        .map(|(_, ratio)| *ratio);
    let measured = match (here, elsewhere) {
        (Some(ratio), _) => Measured::Here(ratio),
        (None, Some(ratio)) => Measured::Elsewhere(ratio),
        (None, None) => Measured::Never,
    };
    search_for(available, measured)
}

fn search_for(available: usize, measured: Measured) -> SearchChoice {
    let (ratio, by) = match measured {
        _ if available <= 1 => {
            return SearchChoice {
                workers: 1,
                why: "depth-first on 1 worker (1 core for this run)".to_owned(),
            }
        }
        Measured::Never => {
            return SearchChoice {
                workers: 1,
                why: format!(
                    "depth-first on 1 worker (breadth-first on {available} workers has not been measured faster; `cargo tso calibrate` measures it, -j {available} chooses it)"
                ),
            }
        }
        Measured::Here(ratio) => (ratio, "on this machine by `cargo tso calibrate`"),
        Measured::Elsewhere(ratio) => (
            ratio,
            "on another machine; `cargo tso calibrate` measures this one",
        ),
    };
    if ratio < 1.0 {
        SearchChoice {
            workers: available,
            why: format!(
                "breadth-first on {available} workers (measured {:.2}x faster than depth-first on 1, {by})",
                1.0 / ratio
            ),
        }
    } else {
        SearchChoice {
            workers: 1,
            why: format!(
                "depth-first on 1 worker (breadth-first on {available} workers was measured {ratio:.2}x slower, {by}; -j {available} chooses it)"
            ),
        }
    }
}

/// The search `-j` asked for.
pub fn given_search(jobs: usize) -> SearchChoice {
    let workers = jobs.max(1);
    let why = if workers == 1 {
        "depth-first on 1 worker (-j 1)".to_owned()
    } else {
        format!("breadth-first on {workers} workers (-j {workers})")
    };
    SearchChoice { workers, why }
}

impl CheckSettings {
    pub fn from_args(args: &CheckingArgs, sb_bound: u32) -> CheckSettings {
        let mut machine = MachineOptions::default();
        if let Some(steps) = args.max_steps {
            machine.max_steps = steps;
        }
        machine.spurious_wakeups = !args.no_spurious_wakeups;
        machine.definedness = !args.no_definedness;
        machine.por = !args.no_por;
        machine.persistent_sets = args.experimental_persistent_sets;
        machine.dpor = args.experimental_dpor;
        machine.race_read_futures = !args.no_race_read_futures;
        // Used by the race search of a TSO check alone (`pipeline::race_search`).
        machine.race_screen = !args.no_race_screen;
        machine.incremental_canon = !args.no_incremental_canon;
        machine.check_incremental_canon = args.check_incremental_canon;
        machine.symmetry = !args.no_symmetry;
        machine.join_slots = !args.no_join_symmetry;
        machine.awaits = !args.no_awaits;
        machine.allow_nontermination = args.allow_nontermination;
        let memory_model = args.memory_model.map_or(MemoryModel::Tso, Into::into);
        machine.races = args
            .races
            .map_or(default_races(memory_model), |r| r.policy());
        CheckSettings {
            memory_model,
            sb_bound,
            history_bound: args.history_bound,
            static_locals: !args.no_static_locals,
            dynamic_bypass: !args.no_dynamic_bypass,
            reference_machine: args.reference_machine,
            limits: Limits {
                // 0: no limit.
                max_states: args.max_states.filter(|&n| n > 0),
                max_memory: args.max_memory.filter(|&n| n > 0),
                timeout: args
                    .timeout
                    .filter(|&t| t > 0.0)
                    .map(Duration::from_secs_f64),
                deadline: None,
                stop: None,
            },
            machine,
            show_details: false,
            suggest_fences: args.suggest_fences,
            jobs: 1,
            search_why: String::new(),
            races_explicit: args.races.is_some(),
            test_memory: None,
            interrupt: None,
            cores: 1,
            race_search_order: args.race_search_order,
        }
    }

    /// Whether the race search of a TSO check runs beside the TSO run: that run's search
    /// uses `jobs` of the run's cores, so one is idle when `cores` exceeds it.
    pub fn race_search_beside(&self) -> bool {
        match self.race_search_order {
            RaceSearchOrder::Auto => self.cores > self.jobs,
            RaceSearchOrder::After => false,
            RaceSearchOrder::Beside => true,
        }
    }

    /// Starts the `--timeout` budget: every search and re-run of this check from now on
    /// shares it (the race search, the SC re-run, the fence search take what is left).
    pub fn start_clock(&mut self) {
        self.limits.deadline = self.limits.timeout.map(|t| Instant::now() + t);
    }

    /// When the budget is spent: the reason a search would give.
    pub fn out_of_time(&self) -> Option<String> {
        let spent = self.limits.deadline.is_some_and(|d| Instant::now() >= d);
        spent.then(|| match self.limits.timeout {
            Some(t) => format!("--timeout {}s reached", t.as_secs_f64()),
            None => "--timeout reached".to_owned(),
        })
    }

    /// What one search under these settings looks for (and establishes when it
    /// finishes).
    pub fn searched_properties(&self) -> Vec<Property> {
        let mut properties = vec![Property::Errors];
        if self.machine.definedness {
            properties.push(Property::Definedness);
        }
        properties.push(Property::Hangs);
        if self.machine.races != tso_engine::RacePolicy::Allow {
            properties.push(Property::Races);
        }
        properties
    }

    /// The same run with race policy `races`.
    pub fn with_races(&self, races: tso_engine::RacePolicy) -> CheckSettings {
        let mut s = self.clone();
        s.machine.races = races;
        s
    }

    /// The same run under `model`, with that model's race policy unless `--races` was
    /// given (a test that declares its memory models).
    pub fn under_model(&self, model: MemoryModel) -> CheckSettings {
        let mut s = self.clone();
        s.memory_model = model;
        if !s.races_explicit {
            s.machine.races = default_races(model);
        }
        s
    }

    /// The same run under sequential consistency (for classifying a TSO failure).
    pub fn under_sc(&self) -> CheckSettings {
        CheckSettings {
            memory_model: MemoryModel::Sc,
            ..self.clone()
        }
    }

    /// `x86-TSO, sb-bound 32` / `SC`, for headers.
    pub fn describe(&self) -> String {
        match self.memory_model {
            MemoryModel::Sc => "SC".to_owned(),
            MemoryModel::Tso => format!("x86-TSO, sb-bound {}", bound_name(self.sb_bound)),
            MemoryModel::C11 => format!(
                "C11 (RC11), history-bound {}",
                bound_name(self.history_bound)
            ),
        }
    }
}

/// What a data race does when `--races` is not given: a racy program has no defined
/// behaviour under C11, so nothing to check further.
fn default_races(model: MemoryModel) -> tso_engine::RacePolicy {
    match model {
        MemoryModel::C11 => tso_engine::RacePolicy::Deny,
        MemoryModel::Sc | MemoryModel::Tso => tso_engine::RacePolicy::default(),
    }
}

/// `4`, or `unbounded` for 0.
pub fn bound_name(bound: u32) -> String {
    if bound == 0 {
        "unbounded".to_owned()
    } else {
        bound.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::{search_for, Measured};

    #[test]
    fn breadth_first_only_where_measured_faster() {
        for measured in [Measured::Here(0.6), Measured::Elsewhere(0.6)] {
            assert_eq!(search_for(4, measured).workers, 4, "{measured:?}");
        }
        for measured in [
            Measured::Here(1.4),
            Measured::Elsewhere(1.4),
            Measured::Never,
        ] {
            assert_eq!(search_for(4, measured).workers, 1, "{measured:?}");
        }
        // One core: nothing to choose.
        assert_eq!(search_for(1, Measured::Here(0.1)).workers, 1);
    }

    /// The race search runs beside the TSO run only on a core the run's search leaves
    /// idle, unless `--race-search-order` says where.
    #[test]
    fn the_race_search_runs_beside_only_on_an_idle_core() {
        use super::{CheckSettings, RaceSearchOrder};
        use clap::Parser;
        let parsed = crate::cli::Cli::parse_from(["cargo tso", "check", "x.c"]);
        let crate::cli::Command::Check(args) = parsed.command else {
            panic!("not a check");
        };
        let mut settings = CheckSettings::from_args(&args.checking, 32);
        assert_eq!(settings.race_search_order, RaceSearchOrder::Auto);
        for (cores, jobs, beside) in [
            (1, 1, false),
            (2, 1, true),
            (2, 2, false),
            (4, 4, false),
            (4, 2, true),
        ] {
            settings.cores = cores;
            settings.jobs = jobs;
            assert_eq!(
                settings.race_search_beside(),
                beside,
                "{cores} cores, {jobs} workers"
            );
        }
        settings.race_search_order = RaceSearchOrder::After;
        settings.cores = 2;
        settings.jobs = 1;
        assert!(!settings.race_search_beside());
        settings.race_search_order = RaceSearchOrder::Beside;
        settings.cores = 1;
        assert!(settings.race_search_beside());
    }

    #[test]
    fn verbose_line_says_where_the_measurement_was_taken() {
        assert!(search_for(2, Measured::Here(2.0))
            .why
            .contains("on this machine"));
        assert!(search_for(2, Measured::Elsewhere(2.0))
            .why
            .contains("another machine"));
        assert!(search_for(2, Measured::Never)
            .why
            .contains("not been measured"));
    }
}
