//! libtest's test selection: name filters, `--exact`, `--skip`, `--ignored`,
//! `--include-ignored`; then this machine's share (`--partition`).

use crate::settings::MemoryModel;
use crate::test_cmd::catalog::TestCase;
use crate::test_cmd::partition::Partition;

#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub filters: Vec<String>,
    pub exact: bool,
    pub skip: Vec<String>,
    pub ignored_only: bool,
    pub include_ignored: bool,
    pub partition: Option<Partition>,
    /// `--memory-model`: of the tests that declare their models, only the runs under
    /// this one.
    pub memory_model: Option<MemoryModel>,
}

/// The outcome of selecting.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// The selected tests (indices into the cases) with their plans.
    pub tests: Vec<(usize, Plan)>,
    /// Tests not selected (by filter, ignore state or partition).
    pub filtered_out: usize,
    /// Filters that match no test's name at all (a typo, or a renamed test).
    pub unmatched_filters: Vec<String>,
}

/// What happens to a selected test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    Run,
    /// Reported as ignored, not run.
    Ignore,
}

impl Filter {
    fn matches(&self, pattern: &str, name: &str) -> bool {
        if self.exact {
            name == pattern
        } else {
            name.contains(pattern)
        }
    }

    fn selects_name(&self, name: &str) -> bool {
        (self.filters.is_empty() || self.filters.iter().any(|f| self.matches(f, name)))
            && !self.skip.iter().any(|s| self.matches(s, name))
    }

    /// The selected tests, in catalog order.
    pub fn apply(&self, cases: &[TestCase]) -> Selection {
        let mut selected = Vec::new();
        for (index, case) in cases.iter().enumerate() {
            if !self.selects_name(&case.name) || (self.ignored_only && !case.ignored) {
                continue;
            }
            if case.model.is_some()
                && self.memory_model.is_some()
                && case.model != self.memory_model
            {
                continue;
            }
            let plan = if case.ignored && !self.ignored_only && !self.include_ignored {
                Plan::Ignore
            } else {
                Plan::Run
            };
            selected.push((index, plan));
        }
        if let Some(partition) = &self.partition {
            let names: Vec<&str> = selected
                .iter()
                .map(|&(i, _)| cases[i].name.as_str())
                .collect();
            let members = partition.members(&names);
            let mut member = members.into_iter();
            selected.retain(|_| member.next().unwrap_or(false));
        }
        let unmatched_filters = self
            .filters
            .iter()
            .filter(|f| !cases.iter().any(|c| self.matches(f, &c.name)))
            .cloned()
            .collect();
        Selection {
            filtered_out: cases.len() - selected.len(),
            tests: selected,
            unmatched_filters,
        }
    }
}
