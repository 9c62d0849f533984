//! `--html DIR`: one page per test whose run found a counterexample (failing or
//! failing as expected), named after the test; JUnit names each page.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tso_engine::Verdict;

use crate::render::html::{self, Picture};
use crate::settings::MemoryModel;
use crate::test_cmd::runner::TestResult;

/// `pkg::file::test [sb=2]` as `pkg.file.test__sb_2_.html`: the name with only
/// characters every file system and URL takes.
pub fn file_name(test: &str) -> String {
    let mut name: String = test
        .replace("::", ".")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    name.push_str(".html");
    name
}

/// Writes the pages into `dir`; returns each test's page by test name.
pub fn write_pages(
    dir: &Path,
    results: &[TestResult],
) -> std::io::Result<BTreeMap<String, PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let dir = dir.canonicalize()?;
    let mut pages = BTreeMap::new();
    for result in results {
        let Some(outcome) = result
            .outcome
            .as_ref()
            .filter(|o| o.verdict == Verdict::Fail)
        else {
            continue;
        };
        let fences = html::verified_fences(result.fences.as_ref());
        let path = dir.join(file_name(&result.name));
        let title = format!("{} — {}", result.name, result.judgement.finding.as_str());
        html::write(
            &path,
            &Picture {
                title: &title,
                report: outcome,
                classification: result.classification_sentence(),
                tso: result.model == MemoryModel::Tso,
                fences: &fences,
                // With a run, the note is what follows its explanation (fences).
                note: result.note.as_deref(),
            },
        )?;
        pages.insert(result.name.clone(), path);
    }
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::file_name;

    #[test]
    fn page_names_keep_only_portable_characters() {
        assert_eq!(
            file_name("peterson-lock::mutual_exclusion::unfenced"),
            "peterson-lock.mutual_exclusion.unfenced.html"
        );
        assert_eq!(file_name("p::f::t [sb=2]"), "p.f.t__sb_2_.html");
    }
}
