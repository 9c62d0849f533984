//! libtest's test selection: name filters, `--exact`, `--skip`, `--ignored`,
//! `--include-ignored`.

use crate::test_cmd::catalog::TestCase;

#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub filters: Vec<String>,
    pub exact: bool,
    pub skip: Vec<String>,
    pub ignored_only: bool,
    pub include_ignored: bool,
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

    /// The selected tests (indices into `cases`) with their plans, and how many were
    /// filtered out.
    pub fn apply(&self, cases: &[TestCase]) -> (Vec<(usize, Plan)>, usize) {
        let mut selected = Vec::new();
        for (index, case) in cases.iter().enumerate() {
            if !self.selects_name(&case.name) || (self.ignored_only && !case.ignored) {
                continue;
            }
            let plan = if case.ignored && !self.ignored_only && !self.include_ignored {
                Plan::Ignore
            } else {
                Plan::Run
            };
            selected.push((index, plan));
        }
        let filtered_out = cases.len() - selected.len();
        (selected, filtered_out)
    }
}
