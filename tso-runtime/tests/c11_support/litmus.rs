//! Reads `tests/fixtures/c11_litmus.txt` (its header says the format).

use super::{Op, Outcome, Program};
use std::collections::BTreeSet;
use tso_runtime::c11::Order;

pub struct Litmus {
    pub name: String,
    pub program: Program,
    /// The outcome the shape is about, and whether RC11 allows it.
    pub weak: (String, bool),
    pub outcomes: BTreeSet<String>,
}

/// `1 0 / 1 1`: the values read in thread order, then the final values.
pub fn render(outcome: &Outcome) -> String {
    let reads: Vec<String> = outcome
        .reads
        .iter()
        .flatten()
        .map(|v| v.to_string())
        .collect();
    let finals: Vec<String> = outcome.finals.iter().map(|v| v.to_string()).collect();
    format!("{} / {}", reads.join(" "), finals.join(" "))
        .trim()
        .to_string()
}

fn order(word: &str) -> Result<Order, String> {
    Ok(match word {
        "rlx" => Order::Relaxed,
        "acq" => Order::Acquire,
        "rel" => Order::Release,
        "acqrel" => Order::AcqRel,
        "sc" => Order::SeqCst,
        other => return Err(format!("unknown order {other:?}")),
    })
}

fn location(word: &str) -> Result<usize, String> {
    match word {
        "x" => Ok(0),
        "y" => Ok(1),
        "z" => Ok(2),
        other => Err(format!("unknown location {other:?}")),
    }
}

fn number(word: &str) -> Result<u8, String> {
    word.parse().map_err(|_| format!("not a value: {word:?}"))
}

fn op(text: &str) -> Result<Op, String> {
    let w: Vec<&str> = text.split_whitespace().collect();
    Ok(match w.as_slice() {
        ["st", l, v, o] => Op::Store {
            loc: location(l)?,
            value: number(v)?,
            order: order(o)?,
        },
        ["ld", l, o] => Op::Load {
            loc: location(l)?,
            order: order(o)?,
        },
        ["faa", l, a, o] => Op::FetchAdd {
            loc: location(l)?,
            add: number(a)?,
            order: order(o)?,
        },
        [cas @ ("cas" | "casw"), l, e, n, s, f] => Op::Cas {
            loc: location(l)?,
            expected: number(e)?,
            new: number(n)?,
            success: order(s)?,
            failure: order(f)?,
            weak: *cas == "casw",
        },
        ["fence", o] => Op::Fence(order(o)?),
        _ => return Err(format!("cannot read operation {text:?}")),
    })
}

pub fn parse(text: &str) -> Result<Vec<Litmus>, String> {
    let mut tests: Vec<Litmus> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |e: String| format!("line {}: {e}", n + 1);
        if let Some(rest) = line.strip_prefix("T:") {
            let test = tests
                .last_mut()
                .ok_or_else(|| at("thread before a name".into()))?;
            let ops = rest
                .split(';')
                .map(op)
                .collect::<Result<Vec<Op>, String>>()
                .map_err(at)?;
            for o in &ops {
                if let Some(l) = o.loc() {
                    test.program.locations = test.program.locations.max(l + 1);
                }
            }
            test.program.threads.push(ops);
        } else if let Some(rest) = line.strip_prefix("weak:") {
            let test = tests
                .last_mut()
                .ok_or_else(|| at("weak before a name".into()))?;
            let rest = rest.trim();
            let (outcome, verdict) = rest
                .rsplit_once(' ')
                .ok_or_else(|| at("weak: OUTCOME allowed|forbidden".into()))?;
            let allowed = match verdict {
                "allowed" => true,
                "forbidden" => false,
                v => return Err(at(format!("not allowed|forbidden: {v:?}"))),
            };
            test.weak = (outcome.trim().to_string(), allowed);
        } else if let Some(rest) = line.strip_prefix("outcomes:") {
            let test = tests
                .last_mut()
                .ok_or_else(|| at("outcomes before a name".into()))?;
            test.outcomes = rest
                .split(';')
                .map(|o| o.trim().to_string())
                .filter(|o| !o.is_empty())
                .collect();
        } else {
            tests.push(Litmus {
                name: line.to_string(),
                program: Program {
                    threads: Vec::new(),
                    locations: 0,
                },
                weak: (String::new(), false),
                outcomes: BTreeSet::new(),
            });
        }
    }
    Ok(tests)
}
