//! Turning a failing path into a readable trace by replaying it with tracing on.

use super::chooser::ScriptChooser;
use super::Move;
use crate::error::Failure;
use crate::interp::{Machine, TraceStep};
use crate::ir::Location;
use crate::state::{State, ThreadId};

#[derive(Clone, Debug, Default)]
pub struct Counterexample {
    pub steps: Vec<TraceStep>,
    /// Where the failing thread stopped (the error's location).
    pub error_location: Option<Location>,
    /// Everything printed along the path.
    pub output: String,
    /// The error the replay's last step met: the search's, its message naming memory
    /// as the trace does (a heap block the trace typed is `stats#5`, not `heap#5`).
    pub(crate) failure: Option<Failure>,
}

/// Replay `path` from `initial`; `failing` is the thread whose step failed, if any.
pub fn replay(
    machine: &Machine<'_>,
    initial: State,
    path: &[Move],
    failing: Option<ThreadId>,
) -> Counterexample {
    let mut st = initial;
    let mut steps: Vec<TraceStep> = Vec::new();
    let mut failure = None;
    for mv in path {
        let mut chooser = ScriptChooser::replaying(mv);
        // An error ends the last step; the state then sits at the failing instruction.
        if let Err(f) = machine.run_transition(&mut st, mv.tid, &mut chooser, Some(&mut steps)) {
            failure = Some(f);
            break;
        }
    }
    let error_location = failing
        .and_then(|t| machine.location(&st, t))
        .and_then(|l| machine.program.locations.get(l as usize).cloned());
    Counterexample {
        steps,
        error_location,
        output: String::from_utf8_lossy(&st.output).into_owned(),
        failure,
    }
}
