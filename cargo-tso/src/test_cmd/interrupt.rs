//! Ctrl-C and SIGTERM during `cargo tso test` (nextest's behaviour): the running tests
//! stop, no test starts, and the run ends with the summary and the JUnit report of the
//! tests that finished. A second signal ends the process at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::flag;

pub struct Interrupt {
    /// Set by either signal (from the handler: an atomic store, signal-safe).
    flag: Arc<AtomicBool>,
    /// Which signal came first.
    signal: Arc<AtomicUsize>,
    announced: AtomicBool,
}

impl Interrupt {
    /// Installs the handlers. If that fails the signals keep their default action
    /// (the process ends), as before.
    pub fn install() -> Interrupt {
        let interrupt = Interrupt {
            flag: Arc::new(AtomicBool::new(false)),
            signal: Arc::new(AtomicUsize::new(0)),
            announced: AtomicBool::new(false),
        };
        for signal in [SIGINT, SIGTERM] {
            // Registered first, so it sees the flag as it was before this signal: a
            // second signal exits with the shell's status for it.
            let _ = flag::register_conditional_shutdown(
                signal,
                128 + signal,
                Arc::clone(&interrupt.flag),
            );
            let _ = flag::register_usize(signal, Arc::clone(&interrupt.signal), signal as usize);
            let _ = flag::register(signal, Arc::clone(&interrupt.flag));
        }
        interrupt
    }

    /// The flag the runner and the searches watch.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.flag)
    }

    fn signal(&self) -> Option<i32> {
        if !self.flag.load(Ordering::SeqCst) {
            return None;
        }
        i32::try_from(self.signal.load(Ordering::SeqCst)).ok()
    }

    /// `SIGINT` or `SIGTERM`, once a signal came.
    pub fn describe_if_set(&self) -> Option<&'static str> {
        self.signal()
            .map(|s| if s == SIGTERM { "SIGTERM" } else { "SIGINT" })
    }

    pub fn describe(&self) -> &'static str {
        self.describe_if_set().unwrap_or("interrupt")
    }

    /// True once, the first time it is asked after a signal came.
    pub fn announce(&self) -> bool {
        self.flag.load(Ordering::SeqCst) && !self.announced.swap(true, Ordering::SeqCst)
    }

    /// The shell's status for the signal (130 for SIGINT, 143 for SIGTERM), if one came.
    pub fn exit_code(&self) -> Option<i32> {
        self.signal().map(|s| 128 + s)
    }
}
