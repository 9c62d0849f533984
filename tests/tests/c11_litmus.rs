//! The C11 litmus suite through the command line: every test of
//! `tso-runtime/tests/fixtures/c11_litmus.txt` (MP, SB, LB, IRIW, WRC, 2+2W, CoRR and
//! RMW shapes, weak compare-exchanges, relaxed, release/acquire and seq_cst, with
//! fences) written as a C program with `<stdatomic.h>` and pthreads, checked with
//! `cargo tso check --memory-model c11 --outcomes`. The outcomes reached must be
//! exactly the file's `outcomes:` (those of the RC11 enumerator in
//! `tso-runtime/tests/c11_support/reference.rs`, load buffering excluded by scope),
//! and each program's SC outcomes ⊆ its TSO outcomes ⊆ its C11 outcomes. A sample is
//! also checked with two search workers (states rebuilt from the store): the same
//! outcomes and states.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use tso_suite::check::{self, CheckRun, Model};

struct Litmus {
    name: String,
    /// Per thread, the operations as the file writes them (`ld x rlx`).
    threads: Vec<Vec<String>>,
    outcomes: BTreeSet<String>,
}

fn read_suite() -> Vec<Litmus> {
    let path = tso_suite::workspace_root().join("tso-runtime/tests/fixtures/c11_litmus.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut tests: Vec<Litmus> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with("weak:") {
            continue;
        }
        if let Some(ops) = line.strip_prefix("T:") {
            let t = tests.last_mut().expect("a thread before any test name");
            t.threads
                .push(ops.split(';').map(|o| o.trim().to_string()).collect());
        } else if let Some(list) = line.strip_prefix("outcomes:") {
            let t = tests.last_mut().expect("outcomes before any test name");
            t.outcomes = list.split(';').map(|o| o.trim().to_string()).collect();
        } else {
            tests.push(Litmus {
                name: line.to_string(),
                threads: Vec::new(),
                outcomes: BTreeSet::new(),
            });
        }
    }
    tests
}

fn order(word: &str) -> &'static str {
    match word {
        "rlx" => "memory_order_relaxed",
        "acq" => "memory_order_acquire",
        "rel" => "memory_order_release",
        "acqrel" => "memory_order_acq_rel",
        "sc" => "memory_order_seq_cst",
        other => panic!("unknown order {other:?}"),
    }
}

/// The test as a C program printing `READS / FINALS` as the file writes outcomes.
fn c_program(t: &Litmus) -> String {
    let mut used = BTreeSet::new();
    let mut reads = 0;
    let mut bodies = Vec::new();
    for ops in &t.threads {
        let mut body = String::new();
        for op in ops {
            let w: Vec<&str> = op.split_whitespace().collect();
            if w.len() > 1 && w[0] != "fence" {
                used.insert(w[1].to_string());
            }
            let line = match w.as_slice() {
                ["st", l, v, o] => format!("atomic_store_explicit(&{l}, {v}, {});", order(o)),
                ["ld", l, o] => {
                    reads += 1;
                    format!(
                        "r[{}] = atomic_load_explicit(&{l}, {});",
                        reads - 1,
                        order(o)
                    )
                }
                ["faa", l, a, o] => {
                    reads += 1;
                    format!(
                        "r[{}] = atomic_fetch_add_explicit(&{l}, {a}, {});",
                        reads - 1,
                        order(o)
                    )
                }
                [cas @ ("cas" | "casw"), l, e, n, s, f] => {
                    reads += 1;
                    let strength = if *cas == "casw" { "weak" } else { "strong" };
                    format!(
                        "{{ int e = {e}; atomic_compare_exchange_{strength}_explicit(&{l}, &e, {n}, {}, {}); r[{}] = e; }}",
                        order(s),
                        order(f),
                        reads - 1
                    )
                }
                ["fence", o] => format!("atomic_thread_fence({});", order(o)),
                _ => panic!("{}: cannot read {op:?}", t.name),
            };
            body.push_str("    ");
            body.push_str(&line);
            body.push('\n');
        }
        bodies.push(body);
    }
    let n = t.threads.len();
    let mut c = String::from(
        "#include <pthread.h>\n#include <stdatomic.h>\n#include <stdio.h>\n\natomic_int x, y, z;\n",
    );
    c.push_str(&format!("int r[{}];\n\n", reads.max(1)));
    for (i, body) in bodies.iter().enumerate() {
        c.push_str(&format!(
            "static void *t{i}(void *arg) {{\n    (void)arg;\n{body}    return NULL;\n}}\n\n"
        ));
    }
    let names: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
    let mut format: Vec<&str> = vec!["%d"; reads];
    format.push("/");
    format.extend(vec!["%d"; used.len()]);
    let mut args: Vec<String> = (0..reads).map(|i| format!("r[{i}]")).collect();
    args.extend(
        used.iter()
            .map(|l| format!("atomic_load_explicit(&{l}, memory_order_relaxed)")),
    );
    c.push_str(&format!(
        "int main(void) {{\n    pthread_t t[{n}];\n    void *(*body[{n}])(void *) = {{{}}};\n    for (int i = 0; i < {n}; i++)\n        pthread_create(&t[i], NULL, body[i], NULL);\n    for (int i = 0; i < {n}; i++)\n        pthread_join(t[i], NULL);\n    printf(\"{}\\n\", {});\n    return 0;\n}}\n",
        names.join(", "),
        format.join(" "),
        args.join(", ")
    ));
    c
}

fn show(set: &BTreeSet<String>) -> String {
    set.iter()
        .map(|l| format!("{l:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn c11_litmus_outcomes_through_the_cli() {
    let tests = read_suite();
    assert!(
        tests.len() >= 30,
        "the C11 litmus suite shrank to {}",
        tests.len()
    );
    let dir = tso_suite::test_dir(env!("CARGO_TARGET_TMPDIR"), "c11_litmus");
    let files: Vec<PathBuf> = tests
        .iter()
        .map(|t| {
            let file = dir.join(format!("{}.c", t.name.replace('+', "_")));
            std::fs::write(&file, c_program(t)).expect("write the litmus program");
            file
        })
        .collect();
    let models = [Model::Sc, Model::Tso, Model::C11];
    let jobs: Vec<(usize, Model)> = (0..tests.len())
        .flat_map(|i| models.iter().map(move |&m| (i, m)))
        .collect();
    let runs = check::run_all_on_workers(
        &jobs,
        |i| check::compare_workers(i, 5),
        |&(i, model)| CheckRun::new(&files[i], model).outcomes(),
    );
    let mut problems = Vec::new();
    let mut reached: BTreeMap<(usize, &str), BTreeSet<String>> = BTreeMap::new();
    for (&(i, model), run) in jobs.iter().zip(&runs) {
        let r = &run.first;
        if let Some(d) = run.difference() {
            problems.push(format!("{} under {}: {d}", tests[i].name, model.as_str()));
        }
        match r.outcomes() {
            Some(got) if r.passed() => {
                reached.insert((i, model.as_str()), got);
            }
            _ => problems.push(format!(
                "{} under {}: no outcome set: {r}",
                tests[i].name,
                model.as_str()
            )),
        }
    }
    for (i, t) in tests.iter().enumerate() {
        let (Some(sc), Some(tso), Some(c11)) = (
            reached.get(&(i, "sc")),
            reached.get(&(i, "tso")),
            reached.get(&(i, "c11")),
        ) else {
            continue;
        };
        if *c11 != t.outcomes {
            problems.push(format!(
                "{} under c11: outcome set differs\n    missing: {}\n    extra: {}",
                t.name,
                show(&t.outcomes.difference(c11).cloned().collect()),
                show(&c11.difference(&t.outcomes).cloned().collect())
            ));
        }
        if !sc.is_subset(tso) || !tso.is_subset(c11) {
            problems.push(format!(
                "{}: SC ⊆ TSO ⊆ C11 fails\n    SC: {}\n    TSO: {}\n    C11: {}",
                t.name,
                show(sc),
                show(tso),
                show(c11)
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} C11 litmus problem(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}
