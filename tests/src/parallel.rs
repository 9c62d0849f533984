//! Running independent checks on all cores: a shared work queue over scoped threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Worker count: `TSO_SUITE_JOBS`, else the machine's parallelism.
pub fn jobs() -> usize {
    let default = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    (crate::env_number("TSO_SUITE_JOBS", default as u64) as usize).max(1)
}

/// `f` applied to every item, results in item order.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..jobs().min(items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                if let Ok(mut all) = results.lock() {
                    all[i] = Some(r);
                }
            });
        }
    });
    let all = results.into_inner().unwrap_or_else(|p| p.into_inner());
    all.into_iter()
        .map(|r| r.expect("every work item ran"))
        .collect()
}
