//! Processes and signals are out of scope: a program that forks or handles signals is
//! an `unsupported` verdict that says so plainly, never a pass.

use crate::error::Failure;
use crate::natives::{Natives, Visibility};

const PROCESSES: &[&str] = &[
    "fork",
    "vfork",
    "execv",
    "execve",
    "execvp",
    "system",
    "posix_spawn",
    "wait",
    "waitpid",
];
const SIGNALS: &[&str] = &[
    "signal",
    "sigaction",
    "raise",
    "kill",
    "pthread_kill",
    "sigprocmask",
    "pthread_sigmask",
    "sigwait",
    "sigsuspend",
    "alarm",
    "pause",
];

pub(crate) fn register(n: &mut Natives) {
    for &name in PROCESSES {
        n.add(name, Visibility::Never, move |_, _| {
            Err(Failure::unsupported(format!(
                "unsupported: `{name}`: cargo-tso checks one process; creating or waiting for processes is out of scope"
            )))
        });
    }
    for &name in SIGNALS {
        n.add(name, Visibility::Never, move |_, _| {
            Err(Failure::unsupported(format!(
                "unsupported: `{name}`: signals are out of scope for cargo-tso (no signal is ever delivered to the checked program)"
            )))
        });
    }
}
