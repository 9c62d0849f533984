//! Infinite loops inside one thread's run of invisible steps, found when the loop
//! closes rather than when the instruction budget (`--max-steps`) runs out.
//!
//! After its first step a run is deterministic: a choice ends it (`run_steps`), so does
//! a visible action, and no other thread acts in between. The next state is then a
//! function of the state, and a run that comes back to a state it was in loops forever.
//! Brent's cycle detection finds that with one remembered state: the *tortoise*, taken
//! at steps `START`, `2·START`, `4·START`, …; every later step is compared with it. When
//! the tortoise is inside a loop of `p` steps, the run meets it again `p` steps on, so
//! a loop is found by about `2·max(entry, p)` steps.
//!
//! Comparing is exact: a state is its canonical serialisation with every register (the
//! key the state store uses, up to object renumbering), and two states are the same
//! only when those bytes are. A cheap necessary condition filters first: the same
//! instruction, call depth and top-frame registers. Full comparisons are spaced by a
//! number of steps that grows with the state's size, so that a loop which meets the
//! filter on every turn but never repeats (a walk down a long list) costs a bounded
//! share of the run.

use super::{Machine, Pc};
use crate::state::{State, ThreadId};
use crate::store::{Fingerprint, Fingerprinter};
use crate::value::Val;
use std::sync::Arc;

/// Steps of a run before it is watched for a loop: most runs end far sooner.
pub(super) const START: u64 = 1 << 10;

/// How often (in steps) a long run looks at the `--timeout` deadline.
const DEADLINE_PERIOD: u64 = 1 << 20;

/// The fingerprint of a state taken in the middle of a run: every register, no output
/// (printing does not change what the thread does next).
pub(super) fn exact_key(machine: &Machine<'_>, st: &State) -> Fingerprint {
    Fingerprinter::all_registers().of(machine.program, st)
}

/// Where a thread is and its top frame's registers: equal for two states that are the
/// same (a necessary condition only).
pub(super) struct Position {
    pc: Pc,
    depth: usize,
    regs: Arc<Vec<Val>>,
}

impl Position {
    pub(super) fn of(st: &State, tid: ThreadId) -> Option<Position> {
        let pc = Machine::pc(st, tid)?;
        let t = st.thread(tid);
        Some(Position {
            pc,
            depth: t.frames.len(),
            regs: t.top().regs.clone(),
        })
    }

    /// May `tid` in `st` be in the state this position was taken from? `witness` is a
    /// register that differed last time, tried first: in a loop that does not repeat,
    /// the same register (a counter) usually differs on every turn.
    pub(super) fn may_match(&self, st: &State, tid: ThreadId, witness: &mut usize) -> bool {
        let t = st.thread(tid);
        let Some(f) = t.frames.last() else {
            return false;
        };
        if f.func != self.pc.func
            || f.block != self.pc.block
            || f.ip != self.pc.ip
            || t.frames.len() != self.depth
            || f.regs.len() != self.regs.len()
        {
            return false;
        }
        if Arc::ptr_eq(&f.regs, &self.regs) {
            return true;
        }
        if let (Some(a), Some(b)) = (f.regs.get(*witness), self.regs.get(*witness)) {
            if !alike(a, b) {
                return false;
            }
        }
        match f
            .regs
            .iter()
            .zip(self.regs.iter())
            .position(|(a, b)| !alike(a, b))
        {
            Some(i) => {
                *witness = i;
                false
            }
            None => true,
        }
    }
}

/// Equal but for the objects pointers point to, which canonicalisation renumbers (a
/// stack slot of each call to the same function is a new object).
fn alike(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Ptr(p), Val::Ptr(q)) => {
            (p == q) || (*p as u32 == *q as u32 && *p >> 32 != 0 && *q >> 32 != 0)
        }
        (Val::PtrLanes(x, l), Val::PtrLanes(y, k)) => {
            l == k
                && (0..2).all(|i| {
                    let (p, q) = ((x >> (64 * i)) as u64, (y >> (64 * i)) as u64);
                    if l >> i & 1 != 0 {
                        alike(&Val::Ptr(p), &Val::Ptr(q))
                    } else {
                        p == q
                    }
                })
        }
        (Val::Agg(x), Val::Agg(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| alike(a, b))
        }
        _ => a == b,
    }
}

/// The remembered state of Brent's method.
struct Tortoise {
    step: u64,
    at: Position,
    key: Fingerprint,
}

/// A loop found: the run came back at step `step` to the state it was in `period`
/// steps before (`period` is a multiple of the loop's length).
pub(super) struct Cycle {
    pub step: u64,
    pub period: u64,
}

/// The watch over one thread's run of invisible steps.
pub(super) struct LongRun {
    /// The step at which `check` must next be called.
    pub next: u64,
    /// The step at which the instruction budget is exceeded.
    limit: u64,
    /// Brent's power: the step at which the tortoise is next replaced.
    power: u64,
    tortoise: Option<Tortoise>,
    /// The first step at which a full comparison may be made again.
    next_compare: u64,
    next_deadline: u64,
    /// The register that last told the tortoise from the current state.
    witness: usize,
}

/// What a check decided.
pub(super) enum Verdict {
    Continue,
    /// The budget is spent.
    StepLimit,
    /// The `--timeout` deadline has passed.
    Timeout,
    /// The caller's stop check (`Limits::stop`) gave this reason.
    Stopped(String),
    Cycle(Cycle),
}

impl LongRun {
    /// A run that may take `budget` more steps before `--max-steps` stops it.
    pub(super) fn new(budget: u64) -> LongRun {
        let limit = budget.saturating_add(1);
        LongRun {
            next: START.min(limit),
            limit,
            power: START,
            tortoise: None,
            next_compare: 0,
            next_deadline: DEADLINE_PERIOD,
            witness: 0,
        }
    }

    /// Whether `check` must look at step `step`: an event is due, or `tid` is back at
    /// the instruction the tortoise was taken at. Inlined: asked after every step.
    #[inline]
    pub(super) fn due(&self, st: &State, tid: ThreadId, step: u64) -> bool {
        step >= self.next
            || self.tortoise.as_ref().is_some_and(|t| {
                st.thread(tid).frames.last().is_some_and(|f| {
                    f.ip == t.at.pc.ip && f.block == t.at.pc.block && f.func == t.at.pc.func
                })
            })
    }

    /// Called after step `step` of the run when `due`.
    pub(super) fn check(
        &mut self,
        machine: &Machine<'_>,
        st: &State,
        tid: ThreadId,
        step: u64,
    ) -> Verdict {
        if step >= self.limit {
            return Verdict::StepLimit;
        }
        if step >= self.next_deadline {
            self.next_deadline = step + DEADLINE_PERIOD;
            if machine.past_deadline() {
                return Verdict::Timeout;
            }
            if let Some(reason) = machine.stop_reason() {
                return Verdict::Stopped(reason);
            }
        }
        self.next = self.power.min(self.next_deadline).min(self.limit);
        if step == self.power {
            self.power = step.saturating_mul(2);
            if let Some(at) = Position::of(st, tid) {
                let key = exact_key(machine, st);
                self.next_compare = step + compare_spacing(key.as_bytes().len());
                self.tortoise = Some(Tortoise { step, at, key });
            }
            self.next = self.power.min(self.next_deadline).min(self.limit);
            return Verdict::Continue;
        }
        let Some(t) = &self.tortoise else {
            return Verdict::Continue;
        };
        if step < self.next_compare || !t.at.may_match(st, tid, &mut self.witness) {
            return Verdict::Continue;
        }
        let key = exact_key(machine, st);
        if key == t.key {
            return Verdict::Cycle(Cycle {
                step,
                period: step - t.step,
            });
        }
        self.next_compare = step + compare_spacing(key.as_bytes().len());
        Verdict::Continue
    }
}

/// Steps between two full comparisons of a state whose key has `len` bytes: serialising
/// costs about a step per few bytes, so this keeps comparisons to a small share.
fn compare_spacing(len: usize) -> u64 {
    (len as u64 / 4).max(1)
}

impl Machine<'_> {
    /// Whether the `--timeout` deadline has passed.
    pub(super) fn past_deadline(&self) -> bool {
        self.deadline
            .lock()
            .ok()
            .and_then(|d| *d)
            .is_some_and(|d| std::time::Instant::now() >= d)
    }

    /// The caller's reason to stop now, if any (`Limits::stop`).
    pub(super) fn stop_reason(&self) -> Option<String> {
        let stop = self.stop.lock().ok()?.clone()?;
        (stop.0)()
    }

    /// One invisible step of `tid` on a copy of a run (never with a choice: those end
    /// runs). False if it did not simply go on.
    fn replay_step(&self, st: &mut State, tid: ThreadId) -> bool {
        struct NoChoice;
        impl crate::natives::Chooser for NoChoice {
            fn choose(&mut self, _: usize, _: crate::natives::ChoiceKind) -> usize {
                0
            }
        }
        let Some(pc) = Self::pc(st, tid) else {
            return false;
        };
        let (inst, _) = self.inst_at(&pc);
        matches!(
            self.exec(st, tid, inst, &mut NoChoice, None),
            Ok(super::Exec::Next)
        )
    }

    /// The exact shape of a loop found at `cycle`, for a trace: `at_cycle` is the state
    /// at `cycle.step`, `after_first` the state after the run's first step. Returns the
    /// number of steps after the first one before the loop is entered, and the loop's
    /// length (Brent's second phase, on copies; only traces pay for it).
    pub(super) fn loop_shape(
        &self,
        tid: ThreadId,
        after_first: &State,
        at_cycle: &State,
        cycle: &Cycle,
    ) -> Option<(u64, u64)> {
        // The least period: the first return to the state at `cycle.step`.
        let start = Position::of(at_cycle, tid)?;
        let key = exact_key(self, at_cycle);
        let mut st = at_cycle.clone();
        let mut period = 0;
        loop {
            if period >= cycle.period || !self.replay_step(&mut st, tid) {
                return None;
            }
            period += 1;
            if start.may_match(&st, tid, &mut 0) && exact_key(self, &st) == key {
                break;
            }
        }
        // The entry: the first state that is the same `period` steps later.
        let mut lead = after_first.clone();
        for _ in 0..period {
            if !self.replay_step(&mut lead, tid) {
                return None;
            }
        }
        let mut follow = after_first.clone();
        let mut entry = 0;
        loop {
            if let Some(p) = Position::of(&follow, tid) {
                if p.may_match(&lead, tid, &mut 0)
                    && exact_key(self, &follow) == exact_key(self, &lead)
                {
                    return Some((entry, period));
                }
            }
            if entry >= cycle.step || !self.replay_step(&mut follow, tid) {
                return None;
            }
            if !self.replay_step(&mut lead, tid) {
                return None;
            }
            entry += 1;
        }
    }
}
