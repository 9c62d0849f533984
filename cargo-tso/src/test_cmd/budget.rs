//! Per-test budgets (nextest's `slow-timeout` with `terminate-after`, per test): what
//! one test may spend before it stops as inconclusive. Each setting comes from the
//! first of: the command line, the test file's `build.rs` declaration
//! (`FileOptions::timeout`, then its `Tests` group's), the defaults of
//! `cargo tso test`. The defaults keep one test from taking the machine.

use std::time::Duration;

use test_support::Budget;

use crate::cli::TestArgs;
use crate::settings::CheckSettings;

/// The time budget of a test when neither the command line nor its build script
/// gives one: enough for the examples' biggest tests many times over, and an end for
/// a state space that does not stop growing.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// The share of the machine's memory the tests running side by side may hold
/// together, in tenths: each gets this share divided by `--test-threads`. The rest is
/// for the process itself and the machine's other work.
const MEMORY_SHARE_TENTHS: u64 = 7;

/// Where a test's setting came from, for the explanation of an inconclusive test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    CommandLine,
    BuildScript,
    Default,
}

impl Origin {
    fn describe(self) -> &'static str {
        match self {
            Origin::CommandLine => "command line",
            Origin::BuildScript => "build.rs",
            Origin::Default => "default",
        }
    }
}

/// The budgets of a run: the command line's, and the defaults.
#[derive(Debug, Clone)]
pub struct Budgets {
    pub command_line: Budget,
    pub defaults: Budget,
}

/// One test's budget with the origin of its time, memory and state settings.
#[derive(Debug, Clone, Copy)]
pub struct TestBudget {
    pub budget: Budget,
    pub timeout: Origin,
    pub memory: Origin,
    pub states: Origin,
}

/// The memory one test may hold by default: [`MEMORY_SHARE_TENTHS`] of `total` shared
/// by `test_threads`; `None` when the machine's memory is unknown.
pub fn default_memory(total: u64, test_threads: usize) -> Option<u64> {
    (total > 0).then(|| total / 10 * MEMORY_SHARE_TENTHS / test_threads.max(1) as u64)
}

impl Budgets {
    pub fn new(args: &TestArgs, test_threads: usize) -> Budgets {
        let checking = &args.checking;
        let command_line = Budget {
            // 0 stays 0 (no limit); any other time is at least a millisecond.
            timeout_ms: checking
                .timeout
                .map(|s| ((s * 1000.0).ceil() as u64).max(u64::from(s > 0.0))),
            max_states: checking.max_states,
            max_memory: checking.max_memory,
            sb_bound: None,
            allow_inconclusive: args.allow_inconclusive.then_some(true),
        };
        let defaults = Budget {
            timeout_ms: Some(DEFAULT_TIMEOUT.as_millis() as u64),
            max_memory: default_memory(tso_engine::resources::total_memory(), test_threads),
            ..Budget::default()
        };
        Budgets {
            command_line,
            defaults,
        }
    }

    /// A test's budget: the command line's settings, else its build script's, else
    /// the defaults.
    pub fn for_test(&self, declared: Budget) -> TestBudget {
        let origin = |cli: bool, file: bool| {
            if cli {
                Origin::CommandLine
            } else if file {
                Origin::BuildScript
            } else {
                Origin::Default
            }
        };
        TestBudget {
            budget: self.command_line.or(declared).or(self.defaults),
            timeout: origin(
                self.command_line.timeout_ms.is_some(),
                declared.timeout_ms.is_some(),
            ),
            memory: origin(
                self.command_line.max_memory.is_some(),
                declared.max_memory.is_some(),
            ),
            states: origin(
                self.command_line.max_states.is_some(),
                declared.max_states.is_some(),
            ),
        }
    }
}

impl TestBudget {
    /// The settings of a test run with this budget (0 means no limit, as on the
    /// command line). The memory is this test's heap (`memory_use`), not the process's.
    pub fn apply(&self, settings: &mut CheckSettings) {
        let nonzero = |v: Option<u64>| v.filter(|&v| v > 0);
        settings.limits.timeout = nonzero(self.budget.timeout_ms).map(Duration::from_millis);
        settings.limits.max_states = nonzero(self.budget.max_states);
        settings.test_memory = nonzero(self.budget.max_memory);
        settings.limits.max_memory = None;
    }

    pub fn allows_inconclusive(&self) -> bool {
        self.budget.allow_inconclusive == Some(true)
    }

    /// `budget: timeout 600s (default), max-memory 8.4 GiB (default), max-states
    /// 1000 (build.rs)`, shown under an inconclusive test.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        match self.budget.timeout_ms.filter(|&t| t > 0) {
            Some(ms) => parts.push(format!(
                "timeout {}s ({})",
                ms as f64 / 1000.0,
                self.timeout.describe()
            )),
            None => parts.push("no timeout".to_owned()),
        }
        match self.budget.max_memory.filter(|&m| m > 0) {
            Some(bytes) => parts.push(format!(
                "max-memory {} ({})",
                tso_engine::resources::format_bytes(bytes),
                self.memory.describe()
            )),
            None => parts.push("no max-memory".to_owned()),
        }
        if let Some(states) = self.budget.max_states.filter(|&s| s > 0) {
            parts.push(format!("max-states {states} ({})", self.states.describe()));
        }
        format!("budget: {}\n", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_wins_then_the_build_script_then_the_defaults() {
        let budgets = Budgets {
            command_line: Budget {
                max_states: Some(5),
                ..Budget::default()
            },
            defaults: Budget {
                timeout_ms: Some(600_000),
                max_memory: Some(1 << 30),
                ..Budget::default()
            },
        };
        let declared = Budget {
            max_states: Some(50),
            timeout_ms: Some(2_000),
            sb_bound: Some(4),
            ..Budget::default()
        };
        let test = budgets.for_test(declared);
        assert_eq!(test.budget.max_states, Some(5));
        assert_eq!(test.budget.timeout_ms, Some(2_000));
        assert_eq!(test.timeout, Origin::BuildScript);
        assert_eq!(test.budget.max_memory, Some(1 << 30));
        assert_eq!(test.memory, Origin::Default);
        assert_eq!(test.budget.sb_bound, Some(4));
        assert!(!test.allows_inconclusive());
    }

    #[test]
    fn the_default_memory_is_shared_by_the_tests_side_by_side() {
        let total = 24u64 << 30;
        let one = default_memory(total, 1).unwrap();
        let two = default_memory(total, 2).unwrap();
        assert!(one < total && one > total / 2, "{one}");
        assert_eq!(two, one / 2);
        assert_eq!(default_memory(0, 2), None);
    }
}
