//! A state of the program under test: threads, memory, runtime extension data.

mod thread;
pub(crate) use thread::{ExitValue, ReturnTo, ThreadStatus};
pub use thread::{Frame, Thread};

use crate::memory::{Memory, ObjId};
use crate::race::RaceState;
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
    pub output: Arc<Vec<u8>>,
    /// Set once the program has exited (return from main or exit()).
    pub exit_code: Option<i32>,
    /// Next pthread key to hand out.
    pub next_key: u32,
    /// Functions registered with atexit, in registration order.
    pub atexit: Vec<u64>,
    /// Thread inside a `__VERIFIER_atomic_begin` section, if any.
    pub atomic_owner: Option<ThreadId>,
    /// Data-race detection (`crate::race`); `None` when races are not tracked.
    pub races: Option<Arc<RaceState>>,
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
            .filter(|t| t.status == ThreadStatus::Running)
            .count()
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
