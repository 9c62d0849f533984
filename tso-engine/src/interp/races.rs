//! The interpreter's side of data-race detection (`crate::race`): each access a
//! thread executes, with its atomicity, in program order, and what a race becomes under
//! the policy (`--races`).

use super::{attribute, describe_pointer, Machine};
use crate::error::{ErrorKind, Failure};
use crate::ir::MemOrder;
use crate::memory::ObjId;
use crate::race::screen::{self, ProbeAccess};
use crate::race::{is_atomic_only, Access, Race, RacePolicy, RaceState, ATOMIC_SECTION_KEY};
use crate::state::{State, ThreadId};
use crate::value::{make_ptr, ptr_parts};
use std::sync::Arc;

/// One side of a reported race, in source terms.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RaceAccess {
    pub thread: u32,
    pub write: bool,
    pub atomic: bool,
    /// The access deallocates the memory (free, delete, realloc, a stack frame's end):
    /// a plain write of the whole object.
    pub dealloc: bool,
    /// The source file and line, when debug information says.
    pub file: Option<Arc<str>>,
    pub line: u32,
}

/// A data race as reported: the memory (`counter`, `q->slots[1]`) and both accesses,
/// `first` the one recorded earlier on the path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RaceReport {
    pub location: String,
    pub first: RaceAccess,
    pub second: RaceAccess,
}

impl RaceAccess {
    /// `thread 1 writes (not atomic) at inc.c:3`.
    pub fn describe(&self) -> String {
        let what = if self.write { "writes" } else { "reads" };
        let how = if self.atomic { "atomic" } else { "not atomic" };
        let at = match &self.file {
            Some(f) => {
                let name = std::path::Path::new(&**f)
                    .file_name()
                    .map_or_else(|| f.to_string(), |n| n.to_string_lossy().into_owned());
                format!(" at {name}:{}", self.line)
            }
            None => String::new(),
        };
        if self.dealloc {
            return format!("thread {} deallocates it{at}", self.thread);
        }
        format!("thread {} {what} ({how}){at}", self.thread)
    }
}

impl RaceReport {
    pub fn message(&self) -> String {
        format!(
            "data race on `{}`: {}, and {}, with no happens-before between them",
            self.location,
            self.first.describe(),
            self.second.describe()
        )
    }
}

thread_local! {
    /// A race was found from a state rebuilt from the store since the last
    /// [`take_unreported_race`] on this thread (see `on_race`).
    static UNREPORTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a transition run on this thread since the last call found a race from a
/// state rebuilt from the store (`RaceState::sites_lost`), which it could not report:
/// the caller reports it by running the transition again on the state its path
/// replays. Under `--races warn` only (under `deny` a race is a failure, reworded from
/// a replay like any other).
pub(crate) fn take_unreported_race() -> bool {
    UNREPORTED.with(|u| u.replace(false))
}

/// Thread `tid`'s access of `size` bytes at `p` as the race screen sees it, if the
/// object is shared and live (else no other thread can touch those bytes).
fn shared_access(
    st: &State,
    tid: ThreadId,
    p: u64,
    size: u64,
    write: bool,
    atomic: bool,
) -> Option<ProbeAccess> {
    let (obj, off) = ptr_parts(p);
    st.memory
        .get(obj)
        .is_some_and(|o| o.shared && !o.freed)
        .then(|| ProbeAccess {
            tid,
            obj,
            start: off,
            end: off
                .saturating_add(size.min(u32::MAX as u64) as u32)
                .max(off.saturating_add(1)),
            write,
            atomic,
            section: st.atomic_owner == Some(tid),
        })
}

/// For the race screen (`crate::race::screen`): thread `tid`'s access of `size` bytes at
/// `p`, when another thread can reach them.
fn probe_access(st: &State, tid: ThreadId, p: u64, size: u64, write: bool, atomic: bool) {
    if let Some(access) = shared_access(st, tid, p, size, write, atomic) {
        screen::note(access);
    }
}

impl Machine<'_> {
    /// Thread `tid` accesses `size` bytes at `p` (already checked valid). Accesses to
    /// memory no other thread can reach are kept object-wide (see `crate::race`).
    pub(super) fn race_access(
        &self,
        st: &mut State,
        tid: ThreadId,
        p: u64,
        size: u64,
        write: bool,
        order: MemOrder,
    ) -> Result<(), Failure> {
        if size == 0 {
            return Ok(());
        }
        if screen::probing() {
            probe_access(st, tid, p, size, write, order.is_atomic());
        }
        self.record_access(st, tid, (p, size), write, order, |r, key| {
            match (order.is_atomic(), write) {
                (false, _) => {}
                (true, false) => r.atomic_load(tid, key, order),
                (true, true) => r.atomic_store(tid, key, order),
            }
        })
    }

    /// A read-modify-write or compare-exchange on `p`: one atomic access (LLVM requires
    /// `monotonic` or stronger of both, so `order` is atomic); `written` says whether it
    /// wrote (a failed compare-exchange only reads).
    pub(super) fn race_rmw(
        &self,
        st: &mut State,
        tid: ThreadId,
        p: u64,
        size: u64,
        written: bool,
        order: MemOrder,
    ) -> Result<(), Failure> {
        if screen::probing() {
            probe_access(st, tid, p, size, written, true);
        }
        self.record_access(st, tid, (p, size), written, order, |r, key| {
            if written {
                r.atomic_rmw(tid, key, order);
            } else {
                r.atomic_load(tid, key, order);
            }
        })
    }

    /// Record one access of `size` bytes at `p` (`at` = `(p, size)`), atomic when
    /// `order` is, then let `synchronise` apply its ordering at `(object, offset)`
    /// (`State::record_race_access`); a race found is reported.
    fn record_access(
        &self,
        st: &mut State,
        tid: ThreadId,
        (p, size): (u64, u64),
        write: bool,
        order: MemOrder,
        synchronise: impl FnOnce(&mut RaceState, (ObjId, u32)),
    ) -> Result<(), Failure> {
        if st.races.is_none() {
            return Ok(());
        }
        let (obj, off) = ptr_parts(p);
        let len = size.min(u32::MAX as u64) as u32;
        let atomic = order.is_atomic();
        if is_atomic_only(&self.atomic_only, obj) {
            if !atomic {
                return Err(Failure::unsupported(format!(
                    "a non-atomic access to `{}`, which the program names only in atomic \
                     operations, through a pointer made without it (an integer or \
                     arithmetic past another object): race detection cannot follow it",
                    describe_pointer(self.program, st, p)
                )));
            }
            // Two atomics never race, and no plain access can reach it: only its
            // synchronisation matters (see `crate::race::atomic_only`).
            if let Some(r) = st.races_mut() {
                synchronise(r, (obj, off));
            }
            return Ok(());
        }
        let race = st.record_race_access(
            tid,
            (obj, off, len),
            write,
            atomic,
            |st| self.user_site(st, tid),
            synchronise,
        );
        self.on_race(st, Some((p, size)), race)
    }

    /// Thread `tid` deallocates the object `obj` (its stack frame ends, or a longjmp
    /// leaves it): for race detection a plain write of all of it (`RaceState::dealloc`),
    /// then it dies. `free`, `delete` and `realloc` come through `NativeCx::release`,
    /// which checks the same way and leaves the race to `report_dealloc_races`.
    /// `site`: where (see `dealloc_site`).
    pub(super) fn dealloc(
        &self,
        st: &mut State,
        tid: ThreadId,
        obj: ObjId,
        site: Option<u32>,
    ) -> Result<(), Failure> {
        if st.races.as_ref().is_some_and(|r| r.tracks(obj)) {
            let race = st.races_mut().and_then(|r| r.dealloc(tid, obj, site));
            self.on_race(st, None, race)?;
        }
        if screen::probing() {
            screen::note_dealloc(&st.memory, tid, obj, st.atomic_owner == Some(tid));
        }
        st.kill(obj);
        Ok(())
    }

    /// Where thread `tid` is, for the deallocation of the objects `dying` (the user's
    /// line of the return, or of `pthread_exit`), when race detection holds a history
    /// of any of them: taken before the frames go.
    pub(super) fn dealloc_site<'a>(
        &self,
        st: &State,
        tid: ThreadId,
        dying: impl IntoIterator<Item = &'a ObjId>,
    ) -> Option<u32> {
        let races = st.races.as_ref()?;
        if dying.into_iter().any(|&o| races.tracks(o)) {
            self.user_site(st, tid)
        } else {
            None
        }
    }

    /// The races the deallocations of a native call found (`NativeCx::release`).
    pub(super) fn report_dealloc_races(
        &self,
        st: &mut State,
        races: Vec<Race>,
    ) -> Result<(), Failure> {
        for race in races {
            self.on_race(st, None, Some(race))?;
        }
        Ok(())
    }

    /// The races a memory model's natives found recording the program's accesses
    /// (`NativeCx::race_access`): `(race, pointer, size)`.
    pub(super) fn report_program_races(
        &self,
        st: &mut State,
        races: Vec<(Race, u64, u64)>,
    ) -> Result<(), Failure> {
        for (race, p, size) in races {
            self.on_race(st, Some((p, size)), Some(race))?;
        }
        Ok(())
    }

    /// With `race_read_futures`: record in the race data which running threads may
    /// still write memory through a pointer the program text does not bound (see
    /// `RaceState::writers`), after every transition and for every thread (a state
    /// rebuilt from the store has all ones: the rule then leaves nothing out). From
    /// the static futures that judge the synchronisation natives by what they write
    /// (`explore::future`): a heap block is only ever written through such a pointer.
    /// A thread whose end runs program code (key destructors, exit hooks; main's
    /// `atexit` handlers) may write anything, and so may every thread of a program run
    /// with store buffers (the TSO runtime).
    pub(super) fn update_race_writers(&self, st: &mut State) {
        if !self.opts.race_read_futures || st.races.is_none() {
            return;
        }
        let (futures, ends_run_code, main_end_runs_code) = self.race_futures.get_or_init(|| {
            let futures = super::future::Futures::for_race_writes(self);
            // A memory model plugged in through the hooks (the TSO runtime's store
            // buffers) writes outside any thread's code: anything, any time. Such a
            // model always installs them; its natives alone would be unresolved calls.
            let buffered =
                self.evict_hook.is_some() || self.fence_hook.is_some() || self.data_view.is_some();
            let ends = futures.exit_runs_code || self.has_thread_exit_hook() || buffered;
            let main_end = ["atexit", "at_quick_exit", "on_exit"]
                .iter()
                .any(|name| self.program.function(name).is_some());
            (futures, ends, main_end)
        });
        let mut writers = 0u64;
        for (u, th) in st.threads.iter().enumerate().take(64) {
            if !th.status.is_running() {
                continue;
            }
            let writes = *ends_run_code
                || (u == 0 && *main_end_runs_code)
                || futures.may_write_any(&th.frames);
            writers |= (writes as u64) << u;
        }
        if st.races.as_ref().is_some_and(|r| r.writers() != writers) {
            if let Some(r) = st.races_mut() {
                r.set_writers(writers);
            }
        }
    }

    pub(super) fn race_fence(&self, st: &mut State, tid: ThreadId, order: MemOrder) {
        if let Some(r) = st.races_mut() {
            r.fence(tid, order);
        }
    }

    /// A `__VERIFIER_atomic_*` section starts (`begin`) or ends in thread `tid`.
    pub(super) fn race_atomic_section(&self, st: &mut State, tid: ThreadId, begin: bool) {
        if let Some(r) = st.races_mut() {
            if begin {
                r.acquire(tid, ATOMIC_SECTION_KEY);
            } else {
                r.release(tid, ATOMIC_SECTION_KEY);
            }
        }
    }

    /// The user's source line of what `tid` executes (through library frames).
    pub(super) fn user_site(&self, st: &State, tid: ThreadId) -> Option<u32> {
        let here = self.location(st, tid);
        match here.and_then(|l| self.program.locations.get(l as usize)) {
            Some(l) if l.system => attribute(self.program, st, tid, here).location(),
            _ => here,
        }
    }

    /// Report `race` as the policy says; `at` is the access's memory `(pointer, size)`,
    /// marked raced under `warn` (`None` for a deallocation: its history is gone).
    // Inline: every access calls it, and almost every time with no race.
    #[inline]
    fn on_race(
        &self,
        st: &mut State,
        at: Option<(u64, u64)>,
        race: Option<Race>,
    ) -> Result<(), Failure> {
        match race {
            None => Ok(()),
            Some(race) => self.report_race(st, at, race),
        }
    }

    #[cold]
    fn report_race(
        &self,
        st: &mut State,
        at: Option<(u64, u64)>,
        race: Race,
    ) -> Result<(), Failure> {
        let report = self.race_report(st, &race);
        match self.opts.races {
            RacePolicy::Deny => Err(Failure::new(ErrorKind::DataRace, report.message())),
            RacePolicy::Warn => {
                // Reported once per location: its history no longer matters.
                // Partial-order reduction: marking the bytes raced changes what a later
                // access of them records, a read's too, so it counts as a write of them
                // (`explore::footprint`).
                let sites_lost = st.races.as_ref().is_some_and(|r| r.sites_lost());
                if let Some((p, size)) = at {
                    let (obj, off) = ptr_parts(p);
                    crate::hooks::report(|h| h.bytes(obj, off as u64, size, true));
                    if let Some(r) = st.races_mut() {
                        r.mark_raced(obj, off, size.min(u32::MAX as u64) as u32);
                    }
                }
                if sites_lost {
                    // A state rebuilt from the store knows neither where its recorded
                    // accesses happened nor its objects' own numbers: the search
                    // reports this transition from a replay of the state's path
                    // (`explore::held::Replayer`).
                    UNREPORTED.with(|u| u.set(true));
                    return Ok(());
                }
                if let Ok(mut found) = self.races_found.lock() {
                    match found.get_mut(&report.location) {
                        Some(least) if *least <= report => {}
                        Some(least) => *least = report,
                        None => {
                            found.insert(report.location.clone(), report);
                        }
                    }
                }
                Ok(())
            }
            RacePolicy::Allow => Ok(()),
        }
    }

    fn race_report(&self, st: &State, race: &Race) -> RaceReport {
        let side = |a: &Access, dealloc: bool| {
            let loc = a.site.and_then(|l| self.program.locations.get(l as usize));
            RaceAccess {
                thread: a.tid,
                write: a.write,
                atomic: a.atomic,
                dealloc,
                file: loc.map(|l| l.file.clone()),
                line: loc.map_or(0, |l| l.line),
            }
        };
        RaceReport {
            // The first byte that races, which a longer access (strlen) may only end at.
            location: describe_pointer(self.program, st, make_ptr(race.obj, race.offset)),
            first: side(&race.first, false),
            second: side(&race.second, race.dealloc),
        }
    }
}

impl Machine<'_> {
    /// For the race screen: when `tid`'s next action is a load, store or atomic
    /// operation, or a call of a native that stands for one (`Native::program_accesses`),
    /// its access (if another thread can reach the bytes) goes to `out` and the answer
    /// is true; true with no access when it is a visible call of a
    /// synchronisation native (`Native::data_accesses` false: its own memory is the
    /// primitive's, and it records no access of the program's, see
    /// `race::screen`); false when the transition must be run to know
    /// (`explore::observers::RaceScreen`).
    pub(crate) fn screen_access(
        &self,
        st: &State,
        tid: ThreadId,
        out: &mut Vec<ProbeAccess>,
    ) -> bool {
        use crate::ir::Inst;
        let Some(pc) = Self::pc(st, tid) else {
            return true;
        };
        let (inst, _) = self.inst_at(&pc);
        if let Some(accesses) = self.program_accesses_of(inst) {
            // A memory model's native standing for the program's own access: what it
            // says it accesses (`Native::program_accesses`).
            let frame = st.thread(tid).top();
            let crate::ir::Inst::Call { args, .. } = inst else {
                return false;
            };
            let values: smallvec::SmallVec<[crate::value::Val; 4]> =
                args.iter().map(|a| self.eval(frame, a)).collect();
            let mut made = Vec::new();
            (accesses.accesses)(&values, &mut made);
            out.extend(made.iter().filter_map(|a| {
                shared_access(st, tid, a.ptr, a.len, a.write, a.order.is_atomic())
            }));
            return true;
        }
        let (ptr, ty, write, atomic) = match inst {
            Inst::Load { ptr, ty, order, .. } => (ptr, ty, false, order.is_atomic()),
            Inst::Store { ptr, ty, order, .. } => (ptr, ty, true, order.is_atomic()),
            Inst::CmpXchg { ptr, ty, .. } | Inst::AtomicRmw { ptr, ty, .. } => {
                (ptr, ty, true, true)
            }
            Inst::Call { .. } => return self.calls_synchronisation_native(st, tid, inst),
            _ => return false,
        };
        let p = self.eval(st.thread(tid).top(), ptr).as_u64();
        let size = self.program.types.size(*ty);
        // Not shared: nothing another thread could touch (an invalid access is the
        // transition's own error, which the search meets).
        out.extend(shared_access(st, tid, p, size, write, atomic));
        true
    }

    /// For the race screen: the accesses of `tid`'s whole transition when it is a
    /// thread other than main returning from its start routine with no pthread key
    /// value (so no destructor runs) and races not tracked; `None` when the transition
    /// must be run to know. Such a transition pops the frame, whose stack objects die
    /// (`pop_frame`: a plain write of each shared one, `race::screen::note_dealloc`),
    /// then runs the thread-exit hook, a memory model's native whose accesses are not
    /// noted (`finish_thread` calls it outside `call_native`). Running it on a copy of
    /// the state was most of the screen's cost on programs whose threads end at
    /// different times.
    pub(crate) fn screen_thread_end(
        &self,
        st: &State,
        tid: ThreadId,
        out: &mut Vec<ProbeAccess>,
    ) -> Option<()> {
        let t = st.thread(tid);
        let pc = Self::pc(st, tid)?;
        let (inst, _) = self.inst_at(&pc);
        let ends = tid != 0
            && t.frames.len() == 1
            && t.specific.is_empty()
            && matches!(inst, crate::ir::Inst::Ret { .. })
            && st.races.is_none()
            && st.exit_code.is_none()
            && st.atomic_owner.is_none()
            // An undefined return value is checked before the frame goes.
            && !(self.opts.definedness && self.may_be_undefined(st, tid, inst));
        if !ends {
            return None;
        }
        let frame = t.top();
        out.extend(
            frame
                .allocas
                .iter()
                .chain(frame.varargs.iter())
                .filter_map(|&obj| screen::dealloc_access(&st.memory, tid, obj, false)),
        );
        Some(())
    }

    /// The accesses `inst` makes when it calls a native that stands for the program's
    /// own accesses.
    fn program_accesses_of(
        &self,
        inst: &crate::ir::Inst,
    ) -> Option<crate::natives::ProgramAccesses> {
        let crate::ir::Inst::Call {
            callee: crate::ir::Callee::Direct(f),
            ..
        } = inst
        else {
            return None;
        };
        if self.program.functions[*f as usize].body.is_some() {
            return None;
        }
        self.native_of(*f)?.program_accesses
    }

    /// Is `inst`, `tid`'s next action, a visible call of a native that makes no data
    /// access (outside an atomic section, which runs whole)? Its call then notes no
    /// access when probed; what the rest of its transition may note is the end of
    /// the thread's own stack objects, which the screen runs the transition for when
    /// another thread's next access touches one.
    fn calls_synchronisation_native(
        &self,
        st: &State,
        tid: ThreadId,
        inst: &crate::ir::Inst,
    ) -> bool {
        let crate::ir::Inst::Call {
            callee: crate::ir::Callee::Direct(f),
            ..
        } = inst
        else {
            return false;
        };
        self.program.functions[*f as usize].body.is_none()
            && self.native_of(*f).is_some_and(|n| !n.data_accesses)
            && st.atomic_owner != Some(tid)
            && self.is_visible(st, tid)
    }
}
