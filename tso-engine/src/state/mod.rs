//! A state of the program under test: threads, memory, runtime extension data.

mod thread;
pub(crate) use thread::{ExitValue, ReturnTo, ThreadStatus};
pub use thread::{Frame, Thread};

use crate::memory::{Memory, ObjId};
use crate::race::{Race, RaceState};
use std::any::Any;
use std::sync::Arc;

pub type ThreadId = u32;

/// Per-state data owned by a plug-in (the TSO runtime's store buffers). It is part of
/// the state: cloned with it, hashed with it, and its pointers are renamed with it.
pub trait ExtState: Any + Send + Sync {
    fn clone_box(&self) -> Box<dyn ExtState>;
    /// Every pointer this data holds (they keep objects alive and are roots).
    fn for_each_pointer(&self, f: &mut dyn FnMut(u64));
    /// Deterministic bytes for hashing; `map` renames a pointer to its canonical form.
    fn serialize(&self, map: &mut dyn FnMut(u64) -> u64, out: &mut Vec<u8>);
    /// Rebuilds data of this kind from exactly the bytes `serialize` wrote; `unmap`
    /// turns a canonical pointer back into a pointer of the state being rebuilt. `None`
    /// when the kind cannot be rebuilt: the search then keeps whole states.
    fn decode(
        &self,
        _bytes: &[u8],
        _unmap: &mut dyn FnMut(u64) -> u64,
    ) -> Option<Box<dyn ExtState>> {
        None
    }
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// Partial-order reduction: the objects whose data held for thread `tid` decides
    /// whether that thread's next action is visible (a `Visibility::Custom` test or the
    /// thread-exit hook). None: unknown, and a transition stopping at such an action is
    /// then dependent on every other one.
    fn objects_of_thread(&self, _tid: ThreadId) -> Option<Vec<u32>> {
        None
    }
    /// This data with thread `t` renamed to `new_of[t]` everywhere it names a thread
    /// (thread symmetry, `store/symmetry.rs`). None when it cannot rename its threads:
    /// states holding it are then never permuted.
    fn permute_threads(&self, _new_of: &[ThreadId]) -> Option<Box<dyn ExtState>> {
        None
    }
}

impl Clone for Box<dyn ExtState> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

#[derive(Clone)]
pub struct State {
    pub threads: Vec<Arc<Thread>>,
    pub memory: Memory,
    pub ext: Option<Box<dyn ExtState>>,
    /// What the program printed on the path to this state. Not part of the state's
    /// identity unless outcomes are being collected.
    pub(crate) output: Arc<Vec<u8>>,
    /// Set once the program has exited (return from main or exit()).
    pub(crate) exit_code: Option<i32>,
    /// Next pthread key to hand out.
    pub(crate) next_key: u32,
    /// Functions registered with atexit, in registration order.
    pub(crate) atexit: Vec<u64>,
    /// Thread inside a `__VERIFIER_atomic_begin` section, if any.
    pub(crate) atomic_owner: Option<ThreadId>,
    /// Data-race detection (`crate::race`); `None` when races are not tracked.
    pub(crate) races: Option<Arc<RaceState>>,
    /// A model stored a thread's number in the program's memory (a condition
    /// variable's waiters, an rwlock's or spin lock's holder...), where renaming
    /// threads cannot reach it: this state and all after it are never permuted
    /// (`store/symmetry.rs`).
    pub thread_ids_in_memory: bool,
}

impl State {
    pub fn new(memory: Memory) -> State {
        State {
            threads: Vec::new(),
            memory,
            ext: None,
            output: Arc::new(Vec::new()),
            exit_code: None,
            next_key: 1,
            atexit: Vec::new(),
            atomic_owner: None,
            races: None,
            thread_ids_in_memory: false,
        }
    }

    /// This state with thread `t` renamed `new_of[t]` (`main` must stay 0): the thread
    /// list, the atomic-section owner, the extension data and the race data
    /// (`race/permute.rs`). Handles and mutex owners
    /// are pointers to the threads' handle objects and need no change. None when the
    /// state holds thread ids that cannot be renamed (`store/symmetry.rs`).
    pub fn permute_threads(&self, new_of: &[ThreadId]) -> Option<State> {
        if self.thread_ids_in_memory {
            return None;
        }
        let ext = match &self.ext {
            Some(e) => Some(e.permute_threads(new_of)?),
            None => None,
        };
        let races = self
            .races
            .as_ref()
            .map(|r| Arc::new(r.with_threads_renamed(new_of)));
        Some(self.with_threads_renamed(new_of, ext, races))
    }

    /// `permute_threads` with the extension data and the race data already renamed.
    pub(crate) fn with_threads_renamed(
        &self,
        new_of: &[ThreadId],
        ext: Option<Box<dyn ExtState>>,
        races: Option<Arc<RaceState>>,
    ) -> State {
        let mut threads = self.threads.clone();
        for (old, t) in self.threads.iter().enumerate() {
            threads[new_of[old] as usize] = t.clone();
        }
        State {
            threads,
            memory: self.memory.clone(),
            ext,
            output: self.output.clone(),
            exit_code: self.exit_code,
            next_key: self.next_key,
            atexit: self.atexit.clone(),
            atomic_owner: self.atomic_owner.map(|t| new_of[t as usize]),
            races,
            thread_ids_in_memory: self.thread_ids_in_memory,
        }
    }

    /// The race-detection data, to change it (`None`: races are not tracked).
    #[inline]
    pub fn races_mut(&mut self) -> Option<&mut RaceState> {
        self.races.as_mut().map(Arc::make_mut)
    }

    /// The object dies (freed, or its frame returned); its race history goes with it.
    pub fn kill(&mut self, id: ObjId) {
        self.memory.kill(id);
        if self.races.as_ref().is_some_and(|r| r.tracks(id)) {
            if let Some(r) = self.races_mut() {
                r.forget_object(id);
            }
        }
    }

    /// Race detection: thread `tid` accesses `len` bytes at `off` of `obj` (already
    /// checked valid), atomic or not; then `synchronise` applies its ordering at
    /// `(object, offset)`. Returns the race it has with a recorded access. Memory no
    /// other thread can reach cannot race yet: its access is kept object-wide, and not
    /// even that when an access of the same thread at the same epoch already stands for
    /// it (the common case: no copy of the state). `site` says where the access is,
    /// asked only when it is recorded.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn record_race_access(
        &mut self,
        tid: ThreadId,
        (obj, off, len): (ObjId, u32, u32),
        write: bool,
        atomic: bool,
        site: impl FnOnce(&State) -> Option<u32>,
        synchronise: impl FnOnce(&mut RaceState, (ObjId, u32)),
    ) -> Option<Race> {
        let races = self.races.as_ref()?;
        let Some(o) = self.memory.get(obj).filter(|o| !o.freed) else {
            // Released during a library call (realloc's old block): nothing to keep.
            return None;
        };
        if !o.shared {
            if o.frame_private {
                // No other thread can ever reach it: nothing of it can race.
                return None;
            }
            if !atomic && races.private_covered(tid, obj, write, atomic) {
                return None;
            }
            let site = site(self);
            if let Some(r) = self.races_mut() {
                r.access_private(tid, obj, off, len, write, atomic, site);
                synchronise(r, (obj, off));
            }
            return None;
        }
        let site = site(self);
        if !atomic && races.access_changes_nothing(tid, obj, off, len, write, site) {
            return None;
        }
        self.races_mut().and_then(|r| {
            let race = r.access(tid, obj, off, len, write, atomic, site);
            synchronise(r, (obj, off));
            race
        })
    }

    /// Make `obj` and all it reaches shared: for race detection, each newly shared
    /// object's private history becomes its bytes' history (`RaceState::publish`).
    pub fn share(&mut self, obj: ObjId) {
        let newly = self.memory.mark_shared(obj);
        if newly.is_empty() || self.races.is_none() {
            return;
        }
        for id in newly {
            let size = self.memory.get(id).map_or(0, |o| o.data.len() as u32);
            if let Some(r) = self.races_mut() {
                r.publish(id, size);
            }
        }
    }

    /// Add a thread, with the object its `pthread_t` points to; returns its id.
    pub(crate) fn add_thread(&mut self, mut thread: Thread) -> ThreadId {
        let tid = self.threads.len() as ThreadId;
        thread.handle = self.memory.allocate(crate::memory::Object::new(
            8,
            crate::memory::ObjKind::Internal,
        ));
        self.threads.push(Arc::new(thread));
        tid
    }

    #[inline]
    pub(crate) fn thread(&self, tid: ThreadId) -> &Thread {
        &self.threads[tid as usize]
    }

    #[inline]
    pub(crate) fn thread_mut(&mut self, tid: ThreadId) -> &mut Thread {
        Arc::make_mut(&mut self.threads[tid as usize])
    }

    pub fn running_threads(&self) -> usize {
        self.threads
            .iter()
            .filter(|t| matches!(t.status, ThreadStatus::Running))
            .count()
    }

    /// `running_threads() <= 1`, stopping at the second running thread: asked at
    /// every step (`interp::is_visible`).
    #[inline]
    pub(crate) fn at_most_one_running(&self) -> bool {
        self.threads
            .iter()
            .filter(|t| t.status.is_running())
            .nth(1)
            .is_none()
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.exit_code.is_some() || self.running_threads() == 0
    }

    pub(crate) fn print(&mut self, bytes: &[u8]) {
        Arc::make_mut(&mut self.output).extend_from_slice(bytes);
    }

    pub fn ext_ref<T: 'static>(&self) -> Option<&T> {
        self.ext
            .as_ref()
            .and_then(|e| e.as_any().downcast_ref::<T>())
    }
}
