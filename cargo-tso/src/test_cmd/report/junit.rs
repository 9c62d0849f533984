//! `--junit PATH`: the results as JUnit XML (quick-junit, nextest's serializer), one
//! `<testsuite>` per package. A failure carries the error kind as its type, the
//! error line as its message, and the whole explanation (error, source location,
//! counterexample, SC classification) as its body, as nextest puts a test's output
//! there. Each test case names its memory model in a `memory_model` property.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use quick_junit::{
    NonSuccessKind, Property, Report, TestCase as JunitCase, TestCaseStatus, TestSuite,
};

use crate::test_cmd::expect::{Finding, Status};
use crate::test_cmd::report::explain::explanation;
use crate::test_cmd::report::Summary;
use crate::test_cmd::runner::TestResult;

/// `pkg::file::test` as (`pkg`, `pkg::file`, `test`); a `main` test is `pkg::file`.
fn split_name(name: &str) -> (&str, &str, &str) {
    let package = name.split("::").next().unwrap_or(name);
    match name.rsplit_once("::") {
        Some((class, test)) if class != package => (package, class, test),
        _ => (package, name, name.rsplit("::").next().unwrap_or(name)),
    }
}

fn status_of(result: &TestResult) -> TestCaseStatus {
    match result.judgement.status {
        Status::Passed => TestCaseStatus::success(),
        Status::Ignored => TestCaseStatus::skipped(),
        Status::InconclusiveAllowed => {
            let mut status = TestCaseStatus::skipped();
            let body = explanation(result);
            status.set_message(format!(
                "inconclusive (allowed): {}",
                body.lines().next().unwrap_or_default()
            ));
            status.set_type("inconclusive");
            status.set_description(body);
            status
        }
        Status::Failed | Status::Inconclusive => {
            let kind = if result.judgement.finding == Finding::NotChecked {
                NonSuccessKind::Error
            } else {
                NonSuccessKind::Failure
            };
            let mut status = TestCaseStatus::non_success(kind);
            let body = explanation(result);
            let message = body.lines().next().unwrap_or_default().to_owned();
            status.set_message(message);
            status.set_type(
                result
                    .judgement
                    .found_kind
                    .map_or(result.judgement.finding.as_str(), |k| k.as_str()),
            );
            status.set_description(body);
            status
        }
    }
}

/// The report for `results` (one per test), as XML text; `pages`: each test's
/// `--html` page, named as a property and as an attachment in its output (the
/// `[[ATTACHMENT|path]]` line Jenkins and GitLab pick up).
pub fn render(
    results: &[TestResult],
    summary: &Summary,
    pages: &BTreeMap<String, PathBuf>,
) -> String {
    let mut suites: BTreeMap<&str, TestSuite> = BTreeMap::new();
    for result in results {
        let (package, class, test) = split_name(&result.name);
        let mut case = JunitCase::new(test, status_of(result));
        case.set_classname(class);
        case.set_time(result.exec_time);
        // The model the test ran under (a test may run under several, `name [model]`).
        case.add_property(Property::new("memory_model", result.model.as_str()));
        if let Some(page) = pages.get(&result.name) {
            let page = page.display().to_string();
            case.add_property(Property::new("html", page.as_str()));
            case.set_system_out(format!("[[ATTACHMENT|{page}]]\n"));
        }
        suites
            .entry(package)
            .or_insert_with(|| TestSuite::new(package))
            .add_test_case(case);
    }
    let mut report = Report::new("cargo-tso");
    report.set_time(summary.elapsed);
    report.add_test_suites(suites.into_values());
    report
        .to_string()
        .unwrap_or_else(|error| format!("<!-- cannot serialise the report: {error} -->\n"))
}

/// Writes the report to `path`.
pub fn write(
    path: &Path,
    results: &[TestResult],
    summary: &Summary,
    pages: &BTreeMap<String, PathBuf>,
) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, render(results, summary, pages))
}

#[cfg(test)]
mod tests {
    use super::split_name;

    #[test]
    fn names_split_into_package_class_and_test() {
        assert_eq!(split_name("pkg::ring::push"), ("pkg", "pkg::ring", "push"));
        assert_eq!(
            split_name("pkg::program"),
            ("pkg", "pkg::program", "program")
        );
    }
}
