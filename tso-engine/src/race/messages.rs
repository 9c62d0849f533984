//! Happens-before from the message a load reads, for a memory model that keeps several
//! writes per location (the C11 runtime's view machine), where a load may read an
//! older write than the newest.
//!
//! Under sequential consistency a load reads the newest write, so one release clock
//! per location (`RaceState::sync`) says what an acquire learns. Here each write
//! message carries its own: the clock a reader that acquires it joins. The model tells
//! what it did to its histories as [`MessageEvent`]s, in the order it did it, and the
//! lists here follow its lists position by position:
//! - a release write carries its writer's present clock (the writer then ticks, so
//!   its later accesses are not covered); a relaxed write carries its writer's clock at
//!   its last release fence (a release fence then a relaxed store publishes); a
//!   non-atomic write carries none;
//! - an RMW's write also carries the clock of the message it read (release sequences
//!   continue through RMWs of any order); a relaxed store of the releasing thread
//!   does not continue its release sequence (C++20's rule, as the SC race search and
//!   the C11 view machine have it);
//! - an acquire load (or the read of an acquire RMW) joins the clock of the message
//!   it read into its thread's present; a relaxed load joins it into what the
//!   thread's next acquire fence takes (`ThreadClocks::acquired_relaxed`).
//!
//! The lists are state, serialised with the other clocks (see the module
//! documentation of `race`): a position past a list's end holds no clock, so a list's
//! trailing messages without a clock (or with one that covers no recorded access) are
//! not written, and a list with none is no list.

use super::{RaceState, VectorClock};
use crate::ir::MemOrder;
use crate::memory::ObjId;

/// A location of a memory model's histories: (object, offset).
pub type MessageKey = (ObjId, u32);

/// What a memory model with per-location histories did to them, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MessageEvent {
    /// The location `at` starts with one message (from memory); the locations in
    /// `retired` (which it overlaps) end, and their first messages' clocks go into it.
    Started {
        at: MessageKey,
        retired: Vec<MessageKey>,
    },
    /// The acting thread read message `index` of `at` with `order`.
    Read {
        at: MessageKey,
        index: u32,
        order: MemOrder,
    },
    /// The acting thread wrote a message at position `index` of `at` (the later ones
    /// move up one) with `order`; `rmw`: it read message `index - 1` in the same step.
    Wrote {
        at: MessageKey,
        index: u32,
        order: MemOrder,
        rmw: bool,
    },
    /// The oldest `count` messages of `at` are gone (the rest renumbered from 0).
    Dropped { at: MessageKey, count: u32 },
    /// The location `at` is gone.
    Forgotten { at: MessageKey },
}

/// The clocks of one location's messages, oldest first (see the module documentation).
pub(super) type MessageClocks = Vec<Option<VectorClock>>;

impl RaceState {
    /// Thread `tid`'s step did `event` to the model's histories.
    pub fn message_event(&mut self, tid: u32, event: &MessageEvent) {
        match event {
            MessageEvent::Started { at, retired } => {
                let mut joined: Option<VectorClock> = None;
                for r in retired {
                    let first = self.messages.remove(r).and_then(|l| l.into_iter().next());
                    if let Some(c) = first.flatten() {
                        joined.get_or_insert_with(VectorClock::default).join(&c);
                    }
                }
                self.messages.remove(at);
                if let Some(c) = joined {
                    self.messages.insert(*at, vec![Some(c)]);
                }
            }
            MessageEvent::Read { at, index, order } => {
                let Some(c) = self.message_clock(*at, *index).cloned() else {
                    return;
                };
                let t = self.thread(tid);
                if order.acquires() {
                    t.now.join(&c);
                } else if order.is_atomic() {
                    t.acquired_relaxed.join(&c);
                }
            }
            MessageEvent::Wrote {
                at,
                index,
                order,
                rmw,
            } => {
                let read = match index.checked_sub(1) {
                    Some(i) if *rmw => self.message_clock(*at, i).cloned(),
                    _ => None,
                };
                let t = self.thread(tid);
                let mut clock = if order.releases() {
                    let c = t.now.clone();
                    t.now.tick(tid);
                    Some(c)
                } else if order.is_atomic() {
                    t.fence_release.clone()
                } else {
                    None
                };
                if let Some(r) = read {
                    clock.get_or_insert_with(VectorClock::default).join(&r);
                }
                let list = self.messages.or_default(*at);
                let i = *index as usize;
                if list.len() < i {
                    list.resize(i, None);
                }
                list.insert(i, clock);
                self.trim(*at);
            }
            MessageEvent::Dropped { at, count } => {
                if let Some(list) = self.messages.get_mut(at) {
                    let n = (*count as usize).min(list.len());
                    list.drain(..n);
                    self.trim(*at);
                }
            }
            MessageEvent::Forgotten { at } => {
                self.messages.remove(at);
            }
        }
    }

    /// The clock message `index` of `at` carries, if any.
    fn message_clock(&self, at: MessageKey, index: u32) -> Option<&VectorClock> {
        self.messages.get(&at)?.get(index as usize)?.as_ref()
    }

    /// Drops `at`'s trailing messages without a clock, and the list when none is left.
    fn trim(&mut self, at: MessageKey) {
        if let Some(list) = self.messages.get_mut(&at) {
            while list.last().is_some_and(Option::is_none) {
                list.pop();
            }
            if list.is_empty() {
                self.messages.remove(&at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::race::tests::key;

    const FLAG: MessageKey = (9, 0);

    /// Thread 1 writes object 7 and releases it with message 1 of `FLAG`; thread 2
    /// then writes message 2 relaxed (the newest). Message 0 is the initial value.
    fn published() -> RaceState {
        let mut r = RaceState::new();
        r.spawn(0, 1);
        r.spawn(0, 2);
        r.spawn(0, 3);
        r.message_event(
            0,
            &MessageEvent::Started {
                at: FLAG,
                retired: Vec::new(),
            },
        );
        assert!(r.access(1, 7, 0, 4, true, false, None).is_none());
        let write = |index, order| MessageEvent::Wrote {
            at: FLAG,
            index,
            order,
            rmw: false,
        };
        r.message_event(1, &write(1, MemOrder::Release));
        r.message_event(2, &write(2, MemOrder::Relaxed));
        r
    }

    fn read(r: &mut RaceState, tid: u32, index: u32, order: MemOrder) {
        let e = MessageEvent::Read {
            at: FLAG,
            index,
            order,
        };
        r.message_event(tid, &e);
    }

    #[test]
    fn an_acquire_learns_the_clock_of_the_message_it_read_not_the_newest() {
        // The stale release message synchronises.
        let mut r = published();
        read(&mut r, 3, 1, MemOrder::Acquire);
        assert!(r.access(3, 7, 0, 4, false, false, None).is_none());
        // The newest, relaxed, one releases nothing.
        let mut r = published();
        read(&mut r, 3, 2, MemOrder::Acquire);
        assert!(r.access(3, 7, 0, 4, false, false, None).is_some());
        // A relaxed read of the release message needs an acquire fence after it.
        let mut r = published();
        read(&mut r, 3, 1, MemOrder::Relaxed);
        assert!(r.clone().access(3, 7, 0, 4, false, false, None).is_some());
        r.fence(3, MemOrder::Acquire);
        assert!(r.access(3, 7, 0, 4, false, false, None).is_none());
    }

    #[test]
    fn an_rmw_continues_the_release_sequence_of_the_message_it_read() {
        let mut r = published();
        // Thread 2's RMW reads message 1 and writes right after it (message 2; its
        // relaxed store moves up to 3).
        read(&mut r, 2, 1, MemOrder::Relaxed);
        let rmw = MessageEvent::Wrote {
            at: FLAG,
            index: 2,
            order: MemOrder::Relaxed,
            rmw: true,
        };
        r.message_event(2, &rmw);
        let mut through_rmw = r.clone();
        read(&mut through_rmw, 3, 2, MemOrder::Acquire);
        assert!(through_rmw.access(3, 7, 0, 4, false, false, None).is_none());
        read(&mut r, 3, 3, MemOrder::Acquire);
        assert!(r.access(3, 7, 0, 4, false, false, None).is_some());
    }

    #[test]
    fn dropped_messages_renumber_and_the_clocks_are_state() {
        let r = published();
        // Which message releases thread 1's write is part of the state.
        let mut without = r.clone();
        without.messages = Default::default();
        assert_ne!(key(&r), key(&without));
        let bytes = key(&r);
        let back =
            RaceState::decode(&bytes.iter().map(|c| &c[..]).collect::<Vec<_>>()).expect("decodes");
        assert_eq!(key(&back), bytes);
        // The initial message goes: the release message is now message 0.
        for mut s in [r, back] {
            s.message_event(0, &MessageEvent::Dropped { at: FLAG, count: 1 });
            read(&mut s, 3, 0, MemOrder::Acquire);
            assert!(s.access(3, 7, 0, 4, false, false, None).is_none());
        }
    }
}
