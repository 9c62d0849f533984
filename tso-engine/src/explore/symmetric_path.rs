//! Paths under thread symmetry. A search holds every state as its representative
//! (`Canonicalizer::to_representative`: threads in canonical order), so the moves of a
//! path name threads, and choose among options, as numbered in the representatives.
//! Replayed from the initial state as they are, they could name the wrong thread. This
//! module turns such a path into the same run of the real program: it follows the path
//! on representatives, as the search did, and keeps `rho`, which thread of the current
//! representative is which thread of the real state; each move becomes the real thread
//! and the choice script that leads to the same state (compared up to object numbering
//! with the threads put back in the representative's order).

use super::chooser::{next_script, Choice, Script, ScriptChooser};
use super::observers::{Deadlock, Found, Observer};
use super::Move;
use crate::error::ErrorKind;
use crate::interp::{Machine, Step};
use crate::state::{State, ThreadId};
use crate::store::Canonicalizer;

/// A path of real moves, and for its last step, which representative thread is which
/// real thread before and after it.
pub(super) struct RealPath {
    pub moves: Vec<Move>,
    before_last: Vec<ThreadId>,
    after_last: Vec<ThreadId>,
    /// The real state the path ends in (before a failing last move).
    end: State,
    /// The last move itself failed.
    failed: bool,
}

/// `path` as moves of the real program from `initial`. None when a step cannot be
/// matched (the path is then left as the search found it).
pub(super) fn real_path(machine: &Machine<'_>, initial: &State, path: &[Move]) -> Option<RealPath> {
    let mut canon = Canonicalizer::new();
    canon.symmetry = true;
    let mut rep = initial.clone();
    let mut real = initial.clone();
    let mut rho: Vec<ThreadId> = (0..initial.threads.len() as ThreadId).collect();
    let mut moves = Vec::with_capacity(path.len());
    let mut before_last = rho.clone();
    let mut failed = false;
    for mv in path {
        before_last.clone_from(&rho);
        let mut next = rep.clone();
        let mut chooser = ScriptChooser::replaying(mv);
        let result = machine.run_transition(&mut next, mv.tid, &mut chooser, None);
        // Threads created by this step have the same ids in both.
        while rho.len() < next.threads.len() {
            rho.push(rho.len() as ThreadId);
        }
        let tid = *rho.get(mv.tid as usize)?;
        let identity = rho.iter().enumerate().all(|(i, &t)| i as ThreadId == t);
        match result {
            Err(failure) => {
                // The failing step: the real thread's script that fails the same way.
                let choices = if identity {
                    mv.choices.clone()
                } else {
                    find_script(
                        machine,
                        &real,
                        tid,
                        |r, _| matches!(r, Err(f) if f.kind == failure.kind),
                    )
                    .unwrap_or_else(|| mv.choices.clone())
                };
                moves.push(Move { tid, choices });
                failed = true;
                break;
            }
            Ok(Step::Progress) => {}
            Ok(_) => return None,
        }
        let (choices, after) = if identity {
            let mut after = real.clone();
            let mut chooser = ScriptChooser::replaying(mv);
            machine
                .run_transition(&mut after, tid, &mut chooser, None)
                .ok()?;
            (mv.choices.clone(), after)
        } else {
            let target = plain_bytes(machine, &next);
            let mut new_of = vec![0; rho.len()];
            for (rep_tid, &real_tid) in rho.iter().enumerate() {
                *new_of.get_mut(real_tid as usize)? = rep_tid as ThreadId;
            }
            let mut found = None;
            find_script(machine, &real, tid, |r, after| {
                let same = matches!(r, Ok(Step::Progress))
                    && after
                        .permute_threads(&new_of)
                        .is_some_and(|p| plain_bytes(machine, &p) == target);
                if same {
                    found = Some(after.clone());
                }
                same
            })
            .zip(found)?
        };
        moves.push(Move { tid, choices });
        real = after;
        canon.run(machine.program, &next, false);
        let order = canon.thread_order().to_vec();
        canon.to_representative(&mut next);
        rep = next;
        rho = order.iter().map(|&old| rho[old as usize]).collect();
    }
    Some(RealPath {
        moves,
        before_last,
        after_last: rho,
        end: real,
        failed,
    })
}

/// The first choice script under which thread `tid` of `st` does what `accept` wants.
fn find_script(
    machine: &Machine<'_>,
    st: &State,
    tid: ThreadId,
    mut accept: impl FnMut(&Result<Step, crate::error::Failure>, &State) -> bool,
) -> Option<Vec<Choice>> {
    let mut chooser = ScriptChooser::default();
    let mut script = Script::new();
    loop {
        let mut after = st.clone();
        chooser.reset(&script);
        let r = machine.run_transition(&mut after, tid, &mut chooser, None);
        if accept(&r, &after) {
            return Some(chooser.taken().to_vec());
        }
        script = next_script(chooser.taken())?;
    }
}

/// Canonical bytes without symmetry: equal only for the same threads in the same order.
fn plain_bytes(machine: &Machine<'_>, st: &State) -> Vec<Vec<u8>> {
    let mut c = Canonicalizer::new();
    c.run(machine.program, st, false);
    c.chunks
        .iter()
        .map(|ch| match ch {
            crate::store::Chunk::Bytes(b) => b.to_vec(),
            crate::store::Chunk::Known(id) => id.to_le_bytes().to_vec(),
        })
        .collect()
}

/// Name `found`'s threads as the real path does. A failing step and the observers of
/// transitions (exit status) name threads of the state the last move started from;
/// the observers of states (deadlock, circular wait) the state it led to, whose
/// message is worded again from the real state.
pub(super) fn rename_found(
    machine: &crate::interp::Machine<'_>,
    real: &RealPath,
    found: &mut Found,
) {
    let before = |t: ThreadId| real.before_last.get(t as usize).copied().unwrap_or(t);
    let after = |t: ThreadId| real.after_last.get(t as usize).copied().unwrap_or(t);
    if real.failed || found.failure.kind == ErrorKind::ExitStatus {
        found.thread = found.thread.map(before);
        return;
    }
    found.last_mover_of = found.last_mover_of.iter().map(|&t| after(t)).collect();
    if found.failure.kind == ErrorKind::Deadlock && found.last_mover_of.is_empty() {
        if let Some(again) = (Deadlock { machine }).expanded(&real.end, false) {
            *found = again;
            return;
        }
    }
    found.thread = found.thread.map(after);
}
