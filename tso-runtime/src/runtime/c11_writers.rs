//! Who wrote each message of the C11 machine, for the counterexample trace: a read
//! note names the store it read and, when it read a stale value, the newer store its
//! thread had not seen ("stale: T0's view of x is older than T1's store at a.c:12").
//!
//! Kept only while a path is replayed with tracing on, beside the machine in the
//! state (the runtime's `TracedC11State`) but never serialised: exploration makes
//! none (so no state splits by writer, and its states keep their size), and the
//! replay, which runs the path from the initial state, follows every step's
//! [`HistoryEvent`] log from the first message of each location on, so its lists stay
//! in step with the machine's histories. A location whose list disagrees in length
//! with the machine's (its history began before tracing did) names no writer.

use crate::c11::{HistoryEvent, LocKey};
use tso_engine::ThreadId;

/// The thread that wrote a message, and the program point of the write (a source
/// location id, as [`tso_engine::NativeCx::user_location`] gives it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Writer {
    pub thread: ThreadId,
    pub site: Option<u32>,
}

/// What the step's read read: the writer of the message read and, when a newer
/// message exists at the location, the writer of the newest (`None` inside either:
/// the message came from memory, not from a store the machine saw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReadFrom {
    pub read: Option<Writer>,
    pub newer: Option<Option<Writer>>,
}

/// Per location, the writer of each message, oldest first, as the machine's history.
#[derive(Clone, Debug, Default)]
pub(crate) struct Writers {
    /// Sorted by key.
    locations: Vec<(LocKey, Vec<Option<Writer>>)>,
    /// The last read of the last step followed, and where.
    last_read: Option<(LocKey, ReadFrom)>,
}

impl Writers {
    /// Follows one step's events; the messages it wrote are `by`'s.
    pub fn follow(&mut self, events: &[HistoryEvent], by: Writer) {
        self.last_read = None;
        for e in events {
            match e {
                HistoryEvent::Started { at, retired } => {
                    for r in retired {
                        self.forget(*r);
                    }
                    // The first message is memory's bytes, written by no store here.
                    *self.entry(*at) = vec![None];
                }
                HistoryEvent::Read { at, index, .. } => {
                    self.last_read = self.list(*at).map(|l| {
                        let i = *index as usize;
                        let read = ReadFrom {
                            read: l.get(i).copied().flatten(),
                            newer: (i + 1 < l.len()).then(|| l.last().copied().flatten()),
                        };
                        (*at, read)
                    });
                }
                HistoryEvent::Wrote { at, index, .. } => {
                    if let Some(l) = self.list_mut(*at) {
                        let at = (*index as usize).min(l.len());
                        l.insert(at, Some(by));
                    }
                }
                HistoryEvent::Dropped { at, count } => {
                    if let Some(l) = self.list_mut(*at) {
                        l.drain(..(*count as usize).min(l.len()));
                    }
                }
                HistoryEvent::Forgotten { at } => self.forget(*at),
            }
        }
    }

    /// What the last step's read read (`None`: it read nothing, or at a location
    /// whose writers are not known).
    pub fn last_read(&self) -> Option<ReadFrom> {
        self.last_read.map(|(_, r)| r)
    }

    /// Forgets every location whose list does not have the machine's number of
    /// messages (`len` of a key; `None`: the machine has no such location).
    pub fn keep_agreeing(&mut self, len: impl Fn(LocKey) -> Option<usize>) {
        self.locations.retain(|(k, l)| len(*k) == Some(l.len()));
        if let Some((at, _)) = self.last_read {
            if self.list(at).is_none() {
                self.last_read = None;
            }
        }
    }

    fn list(&self, at: LocKey) -> Option<&Vec<Option<Writer>>> {
        let i = self.locations.binary_search_by_key(&at, |e| e.0).ok()?;
        Some(&self.locations[i].1)
    }

    fn list_mut(&mut self, at: LocKey) -> Option<&mut Vec<Option<Writer>>> {
        let i = self.locations.binary_search_by_key(&at, |e| e.0).ok()?;
        Some(&mut self.locations[i].1)
    }

    fn entry(&mut self, at: LocKey) -> &mut Vec<Option<Writer>> {
        let i = match self.locations.binary_search_by_key(&at, |e| e.0) {
            Ok(i) => i,
            Err(i) => {
                self.locations.insert(i, (at, Vec::new()));
                i
            }
        };
        &mut self.locations[i].1
    }

    fn forget(&mut self, at: LocKey) {
        if let Ok(i) = self.locations.binary_search_by_key(&at, |e| e.0) {
            self.locations.remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::c11::Order;

    const X: LocKey = LocKey {
        object: 1,
        offset: 0,
    };

    fn by(thread: ThreadId, site: u32) -> Writer {
        Writer {
            thread,
            site: Some(site),
        }
    }

    fn wrote(index: u32) -> HistoryEvent {
        HistoryEvent::Wrote {
            at: X,
            index,
            order: Order::Relaxed,
            rmw: false,
        }
    }

    fn read(index: u32) -> HistoryEvent {
        HistoryEvent::Read {
            at: X,
            index,
            order: Order::Relaxed,
        }
    }

    #[test]
    fn a_stale_read_names_the_newest_writer_and_a_fresh_one_none() {
        let mut w = Writers::default();
        let started = HistoryEvent::Started {
            at: X,
            retired: vec![],
        };
        w.follow(&[started, wrote(1)], by(0, 10));
        w.follow(&[wrote(2)], by(1, 20));
        // A store placed before the newest in modification order.
        w.follow(&[wrote(2)], by(2, 30));
        w.follow(&[read(1)], by(3, 40));
        assert_eq!(
            w.last_read(),
            Some(ReadFrom {
                read: Some(by(0, 10)),
                newer: Some(Some(by(1, 20))),
            })
        );
        w.follow(&[read(3)], by(3, 40));
        assert_eq!(
            w.last_read(),
            Some(ReadFrom {
                read: Some(by(1, 20)),
                newer: None,
            })
        );
        // Collection renumbers: the memory's message and T0's go.
        w.follow(
            &[HistoryEvent::Dropped { at: X, count: 2 }, read(0)],
            by(3, 40),
        );
        assert_eq!(w.last_read().and_then(|r| r.read), Some(by(2, 30)));
        // A step that reads nothing leaves no read behind.
        w.follow(&[], by(3, 40));
        assert_eq!(w.last_read(), None);
        w.follow(&[HistoryEvent::Forgotten { at: X }, read(0)], by(3, 40));
        assert_eq!(w.last_read(), None);
    }

    #[test]
    fn a_list_out_of_step_with_the_machine_is_forgotten() {
        let mut w = Writers::default();
        let started = HistoryEvent::Started {
            at: X,
            retired: vec![],
        };
        w.follow(&[started, wrote(1), read(0)], by(0, 10));
        w.keep_agreeing(|_| Some(2));
        assert!(w.last_read().is_some());
        // The machine has a message this list missed: it names no writer any more.
        w.keep_agreeing(|_| Some(3));
        assert_eq!(w.last_read(), None);
        w.follow(&[read(0)], by(0, 10));
        assert_eq!(w.last_read(), None);
    }
}
