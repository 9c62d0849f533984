//! What one model-checking run is asked to do, independent of where the options
//! came from (`check` or `test`).

use std::time::{Duration, Instant};

use tso_engine::explore::Limits;
use tso_engine::interp::MachineOptions;

use crate::cli::{CheckingArgs, MemoryModel};
use crate::run_report::Property;

#[derive(Debug, Clone)]
pub struct CheckSettings {
    pub memory_model: MemoryModel,
    /// Unflushed stores per thread; 0 = unbounded. Ignored under SC.
    pub sb_bound: u32,
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
    /// `--races` was given: it wins over a build script's `Tests::races`.
    pub races_explicit: bool,
}

/// The machine's cores (1 if unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
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
        machine.race_read_futures = !args.no_race_read_futures;
        machine.incremental_canon = !args.no_incremental_canon;
        machine.check_incremental_canon = args.check_incremental_canon;
        machine.symmetry = !args.no_symmetry;
        machine.allow_nontermination = args.allow_nontermination;
        machine.races = args
            .races
            .map_or(tso_engine::race::RacePolicy::default(), |r| r.policy());
        CheckSettings {
            memory_model: args.memory_model,
            sb_bound,
            static_locals: !args.no_static_locals,
            dynamic_bypass: !args.no_dynamic_bypass,
            reference_machine: args.reference_machine,
            limits: Limits {
                max_states: args.max_states,
                max_memory: args.max_memory,
                timeout: args.timeout.map(Duration::from_secs_f64),
                deadline: None,
            },
            machine,
            show_details: false,
            suggest_fences: args.suggest_fences,
            jobs: 1,
            races_explicit: args.races.is_some(),
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
        if self.machine.races != tso_engine::race::RacePolicy::Allow {
            properties.push(Property::Races);
        }
        properties
    }

    /// The same run with race policy `races`.
    pub fn with_races(&self, races: tso_engine::race::RacePolicy) -> CheckSettings {
        let mut s = self.clone();
        s.machine.races = races;
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
        }
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
