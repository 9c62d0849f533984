//! Why a run hit a limit: replay the path the search stopped on and watch the
//! program's named variables along it. A variable that takes ever new values (a
//! statistics counter bumped inside a retry loop) makes every state new, so the
//! state space is probably infinite; that is the usual reason a small test never ends.

use super::chooser::ScriptChooser;
use super::Move;
use crate::interp::{describe_pointer, Machine};
use crate::ir::debug::{DebugInfo, DiType, DiTypeId};
use crate::memory::ObjKind;
use crate::state::State;
use crate::value::make_ptr;
use std::collections::{HashMap, HashSet};

/// At most this many moves of the path are replayed: a growing variable shows itself
/// long before, and the replay must not cost as much as the search did.
const MAX_REPLAYED_MOVES: usize = 200_000;
/// Distinct values a variable must take along the path to be reported as growing:
/// at least this many, and at least one for every [`STEPS_PER_NEW_VALUE`] steps.
const GROWING_AT_LEAST: usize = 32;
const STEPS_PER_NEW_VALUE: usize = 8;
/// Scalars looked at per variable (large arrays are sampled at their start).
const LEAVES_PER_VARIABLE: usize = 64;

/// A variable that kept taking new values along the path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Growing {
    /// As traces name it: `stats.full_hits`, `main::i`.
    pub name: String,
    /// Where it is declared (`file`, line), when debug info says.
    pub declared: Option<(String, u32)>,
    pub distinct_values: usize,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnosis {
    /// Moves along the path the search stopped on.
    pub depth: usize,
    /// Moves replayed to sample it.
    pub sampled: usize,
    /// Most distinct values first.
    pub growing: Vec<Growing>,
}

impl Growing {
    /// `` `stats.full_hits` (ring.c:12) took 2,451 distinct values ``.
    pub fn describe(&self) -> String {
        let at = self
            .declared
            .as_ref()
            .map(|(f, l)| format!(" ({}:{l})", f.rsplit('/').next().unwrap_or(f)))
            .unwrap_or_default();
        format!(
            "`{}`{at} took {} distinct values",
            self.name,
            thousands(self.distinct_values as u64)
        )
    }
}

impl Diagnosis {
    /// Lines for people, under the inconclusive verdict.
    pub fn lines(&self, max_depth: u64) -> Vec<String> {
        let mut lines = vec![format!(
            "the search reached depth {}; the path it stopped on has {} steps",
            thousands(max_depth),
            thousands(self.depth as u64)
        )];
        for g in &self.growing {
            lines.push(format!("{} along it", g.describe()));
        }
        if !self.growing.is_empty() {
            lines.push("the state space is probably infinite: a variable that keeps taking new values makes every state new; bound it (or the loop that changes it) in the test".into());
        }
        lines
    }
}

/// `2,451,006`.
pub fn thousands(n: u64) -> String {
    let mut groups = Vec::new();
    let mut rest = n;
    while rest >= 1000 {
        groups.push(format!("{:03}", rest % 1000));
        rest /= 1000;
    }
    groups.push(rest.to_string());
    groups.reverse();
    groups.join(",")
}

/// Per named scalar: where its variable is declared, and the values it took.
type Seen = HashMap<String, (Option<(String, u32)>, HashSet<Vec<u8>>)>;

/// Replay `path` from `initial` and count the distinct values of every named scalar.
pub fn diagnose(machine: &Machine<'_>, initial: State, path: &[Move]) -> Diagnosis {
    let mut st = initial;
    let mut seen = Seen::new();
    let mut sampled = 0;
    sample(machine, &st, &mut seen);
    for mv in path.iter().take(MAX_REPLAYED_MOVES) {
        let mut chooser = ScriptChooser::from_choices(&mv.choices);
        if machine
            .run_transition(&mut st, mv.tid, &mut chooser, None)
            .is_err()
        {
            break;
        }
        sampled += 1;
        sample(machine, &st, &mut seen);
    }
    let mut growing: Vec<Growing> = seen
        .into_iter()
        .filter(|(_, (_, values))| {
            values.len() >= GROWING_AT_LEAST && values.len() * STEPS_PER_NEW_VALUE >= sampled
        })
        .map(|(name, (declared, values))| Growing {
            name,
            declared,
            distinct_values: values.len(),
        })
        .collect();
    growing.sort_by(|a, b| {
        b.distinct_values
            .cmp(&a.distinct_values)
            .then(a.name.cmp(&b.name))
    });
    growing.truncate(5);
    Diagnosis {
        depth: path.len(),
        sampled,
        growing,
    }
}

/// Record the current value of every scalar of every named global and local.
fn sample(machine: &Machine<'_>, st: &State, seen: &mut Seen) {
    let program = machine.program;
    let debug = &program.debug;
    for id in 1..st.memory.len() as u32 {
        let Some(o) = st.memory.get(id) else { continue };
        if o.freed {
            continue;
        }
        let var = match o.kind {
            ObjKind::Global(_) => debug.globals.get(id as usize - 1).and_then(|v| v.as_ref()),
            ObjKind::Stack => o.var.and_then(|v| debug.locals.get(v as usize)),
            _ => None,
        };
        let Some(var) = var else { continue };
        let declared = (!var.file.is_empty()).then(|| (var.file.to_string(), var.line));
        let mut leaves = Vec::new();
        match var.ty {
            Some(ty) => scalar_leaves(debug, ty, 0, &mut leaves),
            None => leaves.push((0, o.data.len().min(8) as u64)),
        }
        for (off, size) in leaves {
            let (start, end) = (off as usize, (off + size) as usize);
            let Some(bytes) = o.data.get(start..end) else {
                continue;
            };
            let name = describe_pointer(program, st, make_ptr(id, off as u32));
            let entry = seen
                .entry(name)
                .or_insert_with(|| (declared.clone(), HashSet::new()));
            entry.1.insert(bytes.to_vec());
        }
    }
}

/// (offset, size) of the scalars inside a value of type `ty`, at most
/// [`LEAVES_PER_VARIABLE`].
fn scalar_leaves(debug: &DebugInfo, ty: DiTypeId, base: u64, out: &mut Vec<(u64, u64)>) {
    if out.len() >= LEAVES_PER_VARIABLE {
        return;
    }
    match debug.ty(ty) {
        Some(DiType::Scalar { size }) if *size > 0 => out.push((base, (*size).min(16))),
        Some(DiType::Pointer { .. }) => out.push((base, 8)),
        Some(DiType::Record { members, .. }) => {
            for m in members {
                scalar_leaves(debug, m.ty, base + m.offset, out);
            }
        }
        Some(DiType::Array {
            elem,
            stride,
            count,
        }) => {
            for i in 0..*count {
                if out.len() >= LEAVES_PER_VARIABLE {
                    break;
                }
                scalar_leaves(debug, *elem, base + i * stride, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn large_counts_are_grouped_by_thousands() {
        assert_eq!(thousands(2_451_006), "2,451,006");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
    }
}
