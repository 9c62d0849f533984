//! What a running transition reports to whoever watches it: the machine (`memory`,
//! `natives`, `interp`) calls these hooks, the watcher decides what they mean. The
//! search's partial-order reduction is the one watcher (`explore::footprint` records a
//! transition's footprint); with none installed, every report is one test of a flag.
//!
//! The hook is installed per worker thread for the length of one transition
//! (`observe`), so that memory, which lives in states that workers share, needs no
//! pointer to it.

use std::any::Any;
use std::cell::{Cell, RefCell};

/// The reports of one transition. Objects are numbered as in `memory`; `t` is a
/// thread id.
pub(crate) trait TransitionHook: Any {
    /// `len` bytes at `off` of shared object `obj` were read or written (or the race
    /// data kept for them).
    fn bytes(&mut self, obj: u32, off: u64, len: u64, write: bool);
    /// All of object `obj` (or the state kept for it outside its bytes).
    fn object(&mut self, obj: u32, write: bool) {
        self.bytes(obj, 0, u32::MAX as u64, write);
    }
    /// Shared object `obj` changed and may not have been reported written.
    fn object_changed(&mut self, obj: u32);
    /// Whether thread `t` has ended was read, or (`write`) it ended.
    fn thread_end(&mut self, t: u32, write: bool);
    /// The shape of the extension data kept for thread `t` was read or changed.
    fn thread_data(&mut self, t: u32, write: bool);
    /// Thread `t`'s own state was read (every step of `t` reads it: its frames, its
    /// flags, and where its transitions stop, which depends on whether it runs alone),
    /// or (`write`) changed by a step of another thread.
    fn thread_state(&mut self, t: u32, write: bool);
    /// The program's output grew.
    fn output(&mut self);
    /// Something no access describes happened.
    fn everything(&mut self);
    /// The hook back as `Any`, for its installer to take back its own type.
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

thread_local! {
    static OBSERVED: Cell<bool> = const { Cell::new(false) };
    static HOOK: RefCell<Option<Box<dyn TransitionHook>>> = const { RefCell::new(None) };
}

/// Is a hook watching the transition running on this thread?
#[inline]
pub(crate) fn observed() -> bool {
    OBSERVED.with(Cell::get)
}

/// Report to the hook, if one is installed.
#[inline]
pub(crate) fn report(f: impl FnOnce(&mut dyn TransitionHook)) {
    if observed() {
        HOOK.with(|h| {
            if let Some(h) = h.borrow_mut().as_mut() {
                f(&mut **h);
            }
        });
    }
}

/// Run `f` with `hook` installed on this thread, and give the hook back.
pub(crate) fn observe<H: TransitionHook, R>(hook: Box<H>, f: impl FnOnce() -> R) -> (R, Box<H>) {
    /// Uninstalls on the way out, a panic's too.
    struct Installed;
    impl Drop for Installed {
        fn drop(&mut self) {
            OBSERVED.with(|o| o.set(false));
        }
    }
    HOOK.with(|h| *h.borrow_mut() = Some(hook));
    OBSERVED.with(|o| o.set(true));
    let installed = Installed;
    let r = f();
    drop(installed);
    let hook = HOOK
        .with(|h| h.borrow_mut().take())
        .expect("the installed hook");
    let hook = hook
        .into_any()
        .downcast::<H>()
        .expect("the hook installed here");
    (r, hook)
}
