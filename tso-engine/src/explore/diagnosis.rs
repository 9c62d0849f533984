//! Why a run hit a limit: replay the path the search stopped on and watch the
//! program's named variables along it. A variable that takes ever new values (a
//! statistics counter bumped inside a retry loop) makes every state new, so the
//! state space is probably infinite; that is the usual reason a small test never ends.
//! A variable that came back to an earlier value (an ABA tag that wraps) or whose type
//! holds few values is bounded: it is listed, but is no evidence of an infinite space.

use super::chooser::ScriptChooser;
use super::Move;
use crate::interp::{describe_pointer, Machine};
use crate::ir::debug::{DebugInfo, DiType, DiTypeId};
use crate::memory::ObjKind;
use crate::resources::thousands;
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
    /// Why its values are bounded, if they are (then it does not make the space
    /// infinite).
    pub bounded: Option<Bounded>,
}

/// Why a variable that took many values is still bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounded {
    /// It changed back to a value it had before (a tag that wraps, a flag).
    Returned,
    /// Its type has at most this many bits (16 or fewer).
    Bits(u32),
}

/// Widest type whose values are few enough to call it bounded.
const BOUNDED_BITS: u32 = 16;

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

    /// Why the values it took are bounded, if they are: empty when they may grow on.
    fn bound_note(&self) -> String {
        match self.bounded {
            None => String::new(),
            Some(Bounded::Returned) => ", but came back to earlier values: bounded".into(),
            Some(Bounded::Bits(b)) => format!(", but its type has {b} bits: bounded"),
        }
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
            lines.push(format!("{} along it{}", g.describe(), g.bound_note()));
        }
        if self.growing.iter().any(|g| g.bounded.is_none()) {
            lines.push("the state space is probably infinite: a variable that keeps taking new values makes every state new; bound it (or the loop that changes it) in the test".into());
        } else if !self.growing.is_empty() {
            lines.push("the variables that change are bounded: the state space is finite but larger than the limit allows".into());
        }
        lines
    }
}

/// Per named scalar: where its variable is declared, and the values it took.
type Seen = HashMap<String, (Option<(String, u32)>, Track)>;

/// The values one scalar took along the path.
#[derive(Default)]
struct Track {
    values: HashSet<Vec<u8>>,
    last: Vec<u8>,
    /// It changed to a value it had before.
    returned: bool,
}

impl Track {
    fn see(&mut self, bytes: &[u8]) {
        if self.last != bytes {
            self.returned |= self.values.contains(bytes);
            self.last = bytes.to_vec();
        }
        self.values.insert(bytes.to_vec());
    }

    fn bounded(&self) -> Option<Bounded> {
        let bits = 8 * self.last.len() as u32;
        if self.returned {
            Some(Bounded::Returned)
        } else if bits <= BOUNDED_BITS {
            Some(Bounded::Bits(bits))
        } else {
            None
        }
    }
}

/// Moves of a search's current path that the growth diagnosis for progress reports
/// replays: enough to see a variable grow, and a small share of the search so far (the
/// whole path could cost half of it).
const GROWTH_SAMPLE_MOVES: usize = 4096;

/// The growth diagnosis of a path a search is on, for progress reports after
/// `GROWTH_AFTER`: its first moves, named as the program's own threads.
pub(super) fn diagnose_sample(
    machine: &Machine<'_>,
    initial: State,
    mut path: Vec<Move>,
) -> Diagnosis {
    path.truncate(GROWTH_SAMPLE_MOVES);
    if machine.opts.symmetry {
        // Moves name the threads of representatives: make them the program's own.
        if let Some(real) = super::symmetric_path::real_path(machine, &initial, &path) {
            path = real.moves;
        }
    }
    diagnose(machine, initial, &path)
}

/// Replay `path` from `initial` and count the distinct values of every named scalar.
pub fn diagnose(machine: &Machine<'_>, initial: State, path: &[Move]) -> Diagnosis {
    let mut st = initial;
    let mut seen = Seen::new();
    let mut sampled = 0;
    sample(machine, &st, &mut seen);
    for mv in path.iter().take(MAX_REPLAYED_MOVES) {
        let mut chooser = ScriptChooser::replaying(mv);
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
        .filter(|(_, (_, track))| {
            let n = track.values.len();
            n >= GROWING_AT_LEAST && n * STEPS_PER_NEW_VALUE >= sampled
        })
        .map(|(name, (declared, track))| Growing {
            name,
            declared,
            distinct_values: track.values.len(),
            bounded: track.bounded(),
        })
        .collect();
    // Unbounded first, then most distinct values first.
    growing.sort_by(|a, b| {
        a.bounded
            .is_some()
            .cmp(&b.bounded.is_some())
            .then(b.distinct_values.cmp(&a.distinct_values))
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
                .or_insert_with(|| (declared.clone(), Track::default()));
            entry.1.see(bytes);
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
        Some(DiType::Scalar { size, .. }) if *size > 0 => out.push((base, (*size).min(16))),
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
    use super::*;

    fn track(values: &[u32], bytes: usize) -> Track {
        let mut t = Track::default();
        for v in values {
            t.see(&v.to_le_bytes()[..bytes]);
        }
        t
    }

    #[test]
    fn a_counter_is_unbounded_and_a_wrapping_tag_or_a_small_type_is_not() {
        let counter: Vec<u32> = (0..100).flat_map(|v| [v, v]).collect();
        assert_eq!(track(&counter, 4).bounded(), None);
        // An ABA tag modulo 64 that wrapped once.
        let tag: Vec<u32> = (0..80).map(|v| v % 64).collect();
        assert_eq!(track(&tag, 4).bounded(), Some(Bounded::Returned));
        assert_eq!(track(&counter, 2).bounded(), Some(Bounded::Bits(16)));
    }

    #[test]
    fn only_an_unbounded_variable_makes_the_space_probably_infinite() {
        let growing = |bounded| Growing {
            name: "slab.head".into(),
            declared: None,
            distinct_values: 44,
            bounded,
        };
        let mut d = Diagnosis {
            depth: 300,
            sampled: 300,
            growing: vec![growing(Some(Bounded::Returned))],
        };
        let text = d.lines(300).join("\n");
        assert!(!text.contains("probably infinite"), "{text}");
        assert!(text.contains("`slab.head` took 44 distinct values along it, but came back to earlier values: bounded"), "{text}");
        d.growing.push(growing(None));
        assert!(d.lines(300).join("\n").contains("probably infinite"));
    }
}
