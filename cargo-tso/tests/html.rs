//! `--html` pages rendered by a real browser (Debian's `chromium`, headless), and
//! `--suggest-fences` on a `TSO_TEST_SHOULD_FAIL_UNDER_TSO` test.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::run;

/// The examples' tests with `--html` (and what else `extra` adds); the pages' directory.
fn examples_with_pages(name: &str, extra: &[&str]) -> (common::Run, PathBuf) {
    let dir = common::scratch(name);
    let _ = std::fs::remove_dir_all(&dir);
    let mut cmd = common::examples_test();
    cmd.args(["--test-threads", "1", "--html"]);
    cmd.arg(&dir).args(extra);
    (run(&mut cmd), dir)
}

fn pages(dir: &Path) -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    pages.retain(|p| p.extension().is_some_and(|e| e == "html"));
    pages.sort();
    pages
}

const CHROMIUM: &str = "chromium";

static PROFILES: AtomicUsize = AtomicUsize::new(0);

/// Headless Chromium with nothing that reaches the network, and a fresh profile.
/// `what`: `--dump-dom` or `--screenshot=…`. Panics with the install command when
/// the browser is missing: a browser test that cannot run must not pass.
fn chromium(what: &[&str], page: &Path) -> String {
    // A fresh profile for each run.
    let profile = common::scratch(&format!(
        "chromium-profile-{}",
        PROFILES.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&profile);
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(what)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run `{CHROMIUM}` ({e}); install it with `apt-get install -y chromium` \
                 (scripts/test.sh does so as root)"
            )
        });
    let stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    // A safety bound, not a timing assertion: a hung browser fails the test.
    let start = Instant::now();
    loop {
        match child.try_wait().expect("waiting for chromium") {
            Some(status) => {
                assert!(status.success(), "chromium failed on {}", page.display());
                break;
            }
            None if start.elapsed() > Duration::from_secs(120) => {
                let _ = child.kill();
                panic!("chromium did not finish on {}", page.display());
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    reader.join().expect("reading chromium's output")
}

/// The start tag of the element with `id`, in serialised HTML.
fn start_tag<'a>(dom: &'a str, id: &str) -> Option<&'a str> {
    let at = dom.find(&format!("id=\"{id}\""))?;
    let open = dom[..at].rfind('<')?;
    let close = at + dom[at..].find('>')?;
    Some(&dom[open..=close])
}

fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let len = tag[at..].find('"')?;
    Some(&tag[at..at + len])
}

/// Every trace step of a page has its element in the rendered DOM with a box the
/// browser laid out (the page's script records `data-drawn` from `getBBox`), and its
/// text line beside it.
fn assert_every_step_drawn(page: &Path) -> usize {
    let dom = chromium(&["--dump-dom"], page);
    let body = dom
        .find("<body")
        .and_then(|at| Some(&dom[at..at + dom[at..].find('>')? + 1]))
        .unwrap_or_else(|| panic!("no body in {}", page.display()));
    let steps: usize = attribute(body, "data-steps")
        .and_then(|n| n.parse().ok())
        .expect("the page says how many steps it has");
    assert!(steps > 0, "{} has no steps", page.display());
    for i in 0..steps {
        let step = start_tag(&dom, &format!("step-{i}"));
        assert!(
            step.is_some_and(|t| t.starts_with("<g")),
            "step {i} of {} is not in the picture",
            page.display()
        );
        let line = start_tag(&dom, &format!("line-{i}"))
            .unwrap_or_else(|| panic!("step {i} of {} has no trace line", page.display()));
        assert_eq!(
            attribute(line, "data-drawn"),
            Some("yes"),
            "step {i} of {} was not laid out: {line}",
            page.display()
        );
    }
    assert_eq!(
        attribute(body, "data-drawn-steps"),
        Some(steps.to_string().as_str())
    );
    steps
}

#[test]
fn example_counterexamples_render_in_chromium() {
    let (out, dir) = examples_with_pages("html-examples", &[]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let pages = pages(&dir);
    // The unfenced Peterson lock is the examples' one expected failure.
    assert_eq!(
        pages
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect::<Vec<_>>(),
        ["peterson-lock.mutual_exclusion.unfenced_lock_fails_under_tso.html"]
    );
    for page in &pages {
        let html = std::fs::read_to_string(page).unwrap();
        // Self-contained: nothing to fetch.
        assert!(
            !html.contains("http:") && !html.contains("https:"),
            "{html}"
        );
        // Under TSO: buffer lanes, a store entering a buffer, a flush, the stale read.
        for part in [
            "id=\"lane-b1\"",
            "class=\"arrow\"",
            "class=\"flush",
            "class=\"step load stale\"",
        ] {
            assert!(
                html.contains(part),
                "{part} missing from {}",
                page.display()
            );
        }
        assert_every_step_drawn(page);
    }
}

/// `check --html` draws the program's counterexample; on a pass the page says there is
/// none.
#[test]
fn check_pages_render_in_chromium() {
    let dir = common::scratch("html-check");
    let page = dir.join("store_buffering.html");
    let out = run(common::check()
        .args(["store_buffering.c", "--html"])
        .arg(&page));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(assert_every_step_drawn(&page) > 0);

    let passing = dir.join("mutex_counter.html");
    let out = run(common::check()
        .args(["mutex_counter.c", "--html"])
        .arg(&passing));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let html = std::fs::read_to_string(&passing).unwrap();
    assert!(html.contains("No counterexample: no error is reachable."));
    assert!(!html.contains("id=\"step-"));
}

/// `--suggest-fences` on a test declared to fail under TSO: the fence that makes it
/// pass, under "expected failures", drawn in its page; JUnit names the page.
#[test]
fn expected_tso_failure_gets_its_fence() {
    let junit = common::scratch("html-fences").join("junit.xml");
    let junit_arg = junit.display().to_string();
    let (out, dir) =
        examples_with_pages("html-fences", &["--suggest-fences", "--junit", &junit_arg]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let section = out
        .stdout
        .split_once("expected failures:")
        .map(|(_, rest)| rest)
        .expect("an expected failures section");
    let section = section.split("test result:").next().unwrap();
    assert!(
        section.contains("fence suggestion (1 fence, found and minimised with")
            && section.contains("1. after the store at peterson.c:11:")
            && section.contains("verified: passes under x86-TSO (sb-bound 32) with this fence"),
        "{}",
        out.stdout
    );
    let page = dir.join("peterson-lock.mutual_exclusion.unfenced_lock_fails_under_tso.html");
    let html = std::fs::read_to_string(&page).unwrap();
    // Both threads store `lock.turn` at peterson.c:11: the fence is drawn after each.
    assert_eq!(html.matches("class=\"fence-mark\"").count(), 2, "{html}");
    assert_every_step_drawn(&page);
    let report = std::fs::read_to_string(&junit).unwrap();
    assert!(
        report.contains(&format!(
            "<property name=\"html\" value=\"{}\"/>",
            page.canonicalize().unwrap().display()
        )),
        "{report}"
    );

    // Without the switch, no fence is searched.
    let (out, _) = examples_with_pages("html-no-fences", &[]);
    assert!(!out.stdout.contains("fence suggestion"), "{}", out.stdout);
}
