//! The states a TSO state stands for once every store buffer has drained
//! (`--robustness` compares those with the states sequential consistency reaches).
//!
//! Under delayed flushing a buffer is written out only when something could observe
//! it, so the conventional machine's states with empty buffers appear here as states
//! whose buffers still hold entries. Draining them — each thread's buffer in turn,
//! through the same `fence` the program would execute, with every cross-buffer
//! choice that `fence` offers — gives the states with empty buffers the
//! conventional machine reaches from this one by flushing alone.

use tso_engine::{ErrorKind, Failure, Memory, State};

use super::env::{fragment, payload, pointer};
use super::state::{Buffers, TsoState};
use crate::buffer::{Addr, Choice, Payload, Range, SharedMemory};

struct StateMemory<'a>(&'a mut Memory);

impl SharedMemory for StateMemory<'_> {
    type Error = Failure;
    fn read(&self, range: Range) -> Result<Payload, Failure> {
        Ok(payload(
            self.0
                .read_fragment(pointer(range.addr), range.len as u64)?,
        ))
    }
    fn write(&mut self, addr: Addr, data: &Payload) -> Result<(), Failure> {
        self.0.write_fragment(pointer(addr), &fragment(data))
    }
}

/// Replays a script of choices, then chooses 0; records what it was asked.
#[derive(Default)]
struct Script {
    script: Vec<(u32, u32)>,
    taken: Vec<(u32, u32)>,
}

impl Choice for Script {
    fn choose(&mut self, n: usize) -> usize {
        let c = self.script.get(self.taken.len()).map_or(0, |c| c.0);
        self.taken.push((c, n as u32));
        c as usize
    }
}

/// Every state `st` reaches by draining all store buffers; None when they are empty
/// already (then `st` itself is the only one). More than `limit` drain orders is an
/// error (the caller reports the check as inconclusive rather than compare only some
/// of them).
pub fn drained_states(st: &State, limit: usize) -> Result<Option<Vec<State>>, Failure> {
    let Some(ts) = TsoState::of(st) else {
        return Ok(None);
    };
    let Buffers::Lazy(buffers) = &ts.buffers else {
        return Err(Failure::unsupported(
            "robustness is checked with the delayed-flush machine only",
        ));
    };
    let threads: Vec<u32> = buffers.threads().collect();
    let mut out = Vec::new();
    let mut script = Script::default();
    loop {
        let mut drained = st.clone();
        drained.ext = None;
        let mut b = buffers.clone();
        for &t in &threads {
            b.fence(&mut StateMemory(&mut drained.memory), &mut script, t)
                .map_err(|e| {
                    Failure::new(ErrorKind::Unsupported, format!("draining buffers: {e}"))
                })?;
        }
        out.push(drained);
        if out.len() > limit {
            return Err(Failure::unsupported(format!(
                "more than {limit} orders to drain the store buffers of one state"
            )));
        }
        match tso_engine::advance_script(&script.taken) {
            Some(next) => {
                script = Script {
                    script: next,
                    taken: Vec::new(),
                }
            }
            None => return Ok(Some(out)),
        }
    }
}
