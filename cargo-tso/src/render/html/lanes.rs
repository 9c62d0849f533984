//! What the picture shows, read from the trace steps the text renderer prints: each
//! step's kind and variable, the store-buffer entries with the rows where they enter
//! and leave, the flushes, and the loads that read memory while another thread's
//! buffer still held a store to the same variable (stale reads).
//!
//! The runtime's notes are text (`T1 buffer: [x=1 (a.c:3)]`, `flush: T2 writes x=1
//! (a.c:3) to memory`, `→ 0`); a note this module does not recognise is shown in the
//! trace text and left out of the picture, never guessed at.

use tso_engine::TraceStep;

/// What a step does, as far as the picture needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Load {
        var: String,
    },
    Store {
        var: String,
    },
    /// Locked instructions, calls, fences: drawn as a box in the thread's lane.
    Other,
}

/// One entry of a store buffer, from the step that put it there to the one that took
/// it out.
#[derive(Debug, Clone)]
pub struct Entry {
    pub thread: u32,
    /// `lock.turn=1`.
    pub item: String,
    /// `peterson.c:11`, when the note says.
    pub origin: Option<String>,
    /// Column inside the buffer lane (its position in the buffer when it entered).
    pub slot: usize,
    pub start: usize,
    /// The step after which it counts as written (its order with other buffers still
    /// open): `now counts as written`.
    pub marked: Option<usize>,
    /// The step at which it left the buffer; None when it is still there at the end.
    pub end: Option<usize>,
}

impl Entry {
    pub fn var(&self) -> &str {
        variable_of(&self.item)
    }
}

/// An entry leaving a buffer for memory at a step.
#[derive(Debug, Clone)]
pub struct Flush {
    pub entry: usize,
    /// Only marked as written (`now counts as written`), not yet ordered.
    pub marked_only: bool,
}

/// A load that read memory while `entry` (another thread's store to the same
/// variable) was still unflushed in its buffer.
#[derive(Debug, Clone)]
pub struct Stale {
    pub entry: usize,
}

#[derive(Debug, Clone)]
pub struct Row {
    pub action: Action,
    /// The value a load read (`→ 0`), if noted.
    pub read: Option<String>,
    /// Entries this step put into its thread's buffer.
    pub stored: Vec<usize>,
    pub flushes: Vec<Flush>,
    pub stale: Option<Stale>,
}

#[derive(Debug, Clone)]
pub struct Lanes {
    /// The threads in order of id.
    pub threads: Vec<u32>,
    pub rows: Vec<Row>,
    pub entries: Vec<Entry>,
}

/// The variable of `lock.turn=1` (the buffer's item text).
fn variable_of(item: &str) -> &str {
    item.split_once('=').map_or(item, |(v, _)| v)
}

fn action_of(action: &str) -> Action {
    if let Some(rest) = action.strip_prefix("load ") {
        let var = rest.split_once(" → ").map_or(rest, |(v, _)| v);
        return Action::Load {
            var: var.trim().to_owned(),
        };
    }
    if let Some(rest) = action.strip_prefix("store ") {
        let var = rest.split_once(" := ").map_or(rest, |(v, _)| v);
        return Action::Store {
            var: var.trim().to_owned(),
        };
    }
    Action::Other
}

/// An entry as a buffer note shows it: item, origin, and whether it counts as written.
type NotedEntry = (String, Option<String>, bool);

/// `T1 buffer: [a=1 (x.c:3), b=2 (flushed)]` as (1, [(a=1, x.c:3, false), (b=2, None, true)]).
fn buffer_note(note: &str) -> Option<(u32, Vec<NotedEntry>)> {
    let rest = note.strip_prefix('T')?;
    let (thread, rest) = rest.split_once(" buffer: ")?;
    let thread: u32 = thread.parse().ok()?;
    let inner = rest.strip_prefix('[')?.strip_suffix(']')?;
    let mut items = Vec::new();
    for part in split_top_level(inner) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (item, origin) = match part.rsplit_once(" (") {
            Some((item, origin)) if origin.ends_with(')') => {
                (item, Some(origin.trim_end_matches(')').to_owned()))
            }
            _ => (part, None),
        };
        let flushed = origin.as_deref() == Some("flushed");
        let origin = origin.filter(|_| !flushed);
        items.push((item.to_owned(), origin, flushed));
    }
    Some((thread, items))
}

/// Splits at the commas that are not inside brackets or parentheses.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// `flush: T2 writes x=1 (a.c:3) to memory`, `flush: T2's x=1 (a.c:3) now counts as
/// written`, `flush: T2's x=1 reaches memory`: (thread, item, marked only).
fn flush_note(note: &str) -> Option<(u32, String, bool)> {
    let rest = note.strip_prefix("flush: T")?;
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let thread: u32 = rest[..digits].parse().ok()?;
    let rest = &rest[digits..];
    let strip_origin = |s: &str| match s.rsplit_once(" (") {
        Some((item, _)) => item.to_owned(),
        None => s.to_owned(),
    };
    if let Some(item) = rest
        .strip_prefix(" writes ")
        .and_then(|r| r.strip_suffix(" to memory"))
    {
        return Some((thread, strip_origin(item), false));
    }
    let rest = rest.strip_prefix("'s ")?;
    if let Some(item) = rest.strip_suffix(" now counts as written") {
        return Some((thread, strip_origin(item), true));
    }
    rest.strip_suffix(" reaches memory")
        .map(|item| (thread, item.to_owned(), false))
}

impl Lanes {
    pub fn of(steps: &[TraceStep]) -> Lanes {
        let mut threads: Vec<u32> = steps.iter().map(|s| s.thread).collect();
        threads.sort_unstable();
        threads.dedup();
        let mut lanes = Lanes {
            threads,
            rows: Vec::new(),
            entries: Vec::new(),
        };
        // Per thread: the entries in its buffer now, oldest first.
        let mut live: std::collections::BTreeMap<u32, Vec<usize>> = Default::default();
        for (index, step) in steps.iter().enumerate() {
            let mut row = Row {
                action: action_of(&step.action),
                read: None,
                stored: Vec::new(),
                flushes: Vec::new(),
                stale: None,
            };
            // A stale read is decided on the buffers as they were before the step.
            if let Action::Load { var } = &row.action {
                row.stale = live
                    .iter()
                    .filter(|(t, _)| **t != step.thread)
                    .flat_map(|(_, ids)| ids.iter().copied())
                    .find(|&e| {
                        let entry = &lanes.entries[e];
                        entry.marked.is_none() && entry.var() == var
                    })
                    .map(|entry| Stale { entry });
            }
            let mut noted_flushes: Vec<(u32, String, bool)> = Vec::new();
            for note in &step.notes {
                if let Some(value) = note.strip_prefix("→ ") {
                    row.read = Some(value.to_owned());
                } else if let Some(flush) = flush_note(note) {
                    noted_flushes.push(flush);
                } else if let Some((thread, items)) = buffer_note(note) {
                    lanes.apply_snapshot(index, step.thread, thread, &items, &mut live, &mut row);
                }
            }
            // Flushes the runtime named for a thread whose buffer note did not
            // follow are still drawn, against the entry they name.
            for (thread, item, marked_only) in noted_flushes {
                let known = row.flushes.iter().any(|f| {
                    let e = &lanes.entries[f.entry];
                    e.thread == thread && e.item == item
                });
                if known {
                    continue;
                }
                if let Some(&entry) = live
                    .get(&thread)
                    .and_then(|ids| ids.iter().find(|&&e| lanes.entries[e].item == item))
                {
                    row.flushes.push(Flush { entry, marked_only });
                }
            }
            lanes.rows.push(row);
        }
        lanes
    }

    /// Compares thread `t`'s buffer as the note shows it after step `index` with
    /// what it held: kept entries stay (and may become marked), missing ones left
    /// for memory, new ones entered.
    fn apply_snapshot(
        &mut self,
        index: usize,
        actor: u32,
        t: u32,
        items: &[NotedEntry],
        live: &mut std::collections::BTreeMap<u32, Vec<usize>>,
        row: &mut Row,
    ) {
        let before = live.remove(&t).unwrap_or_default();
        let mut after = Vec::new();
        let mut j = 0;
        for &e in &before {
            let keeps = items.get(j).is_some_and(|(item, origin, flushed)| {
                let entry = &self.entries[e];
                entry.item == *item && (*flushed || origin.is_none() || *origin == entry.origin)
            });
            if keeps {
                if items[j].2 && self.entries[e].marked.is_none() {
                    self.entries[e].marked = Some(index);
                    row.flushes.push(Flush {
                        entry: e,
                        marked_only: true,
                    });
                }
                after.push(e);
                j += 1;
            } else {
                self.entries[e].end = Some(index);
                row.flushes.push(Flush {
                    entry: e,
                    marked_only: false,
                });
            }
        }
        for (item, origin, flushed) in &items[j.min(items.len())..] {
            let taken: Vec<usize> = after.iter().map(|&e| self.entries[e].slot).collect();
            let slot = (0..).find(|s| !taken.contains(s)).unwrap_or(0);
            let id = self.entries.len();
            self.entries.push(Entry {
                thread: t,
                item: item.clone(),
                origin: origin.clone(),
                slot,
                start: index,
                marked: flushed.then_some(index),
                end: None,
            });
            if t == actor && matches!(row.action, Action::Store { .. }) {
                row.stored.push(id);
            }
            after.push(id);
        }
        live.insert(t, after);
    }

    /// How many columns the widest buffer of the trace needs.
    pub fn slots(&self) -> usize {
        self.entries.iter().map(|e| e.slot + 1).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(thread: u32, action: &str, notes: &[&str]) -> TraceStep {
        TraceStep {
            thread,
            location: None,
            action: action.to_owned(),
            notes: notes.iter().map(|n| n.to_string()).collect(),
            output: String::new(),
            detail: false,
        }
    }

    #[test]
    fn buffer_notes_split_outside_brackets() {
        let (t, items) = buffer_note("T2 buffer: [a[0]=1 (x.c:3), p=&f(1, 2) (flushed)]").unwrap();
        assert_eq!(t, 2);
        assert_eq!(items[0], ("a[0]=1".into(), Some("x.c:3".into()), false));
        assert_eq!(items[1], ("p=&f(1, 2)".into(), None, true));
        assert_eq!(buffer_note("T1 buffer: []").unwrap().1, vec![]);
        assert!(buffer_note("T1 buffers: []").is_none());
    }

    #[test]
    fn flush_notes_name_thread_item_and_whether_only_marked() {
        assert_eq!(
            flush_note("flush: T2 writes x=1 (a.c:3) to memory"),
            Some((2, "x=1".into(), false))
        );
        assert_eq!(
            flush_note("flush: T12's y=-1 (a.c:4) now counts as written"),
            Some((12, "y=-1".into(), true))
        );
        assert_eq!(
            flush_note("flush: T3's z=0 reaches memory"),
            Some((3, "z=0".into(), false))
        );
        assert_eq!(flush_note("flushed everything"), None);
    }

    /// A load of `x` while another thread's store to `x` is buffered is stale; once
    /// that entry counts as written, or for the thread's own entry, it is not.
    #[test]
    fn stale_reads_need_another_threads_unflushed_store_to_the_same_variable() {
        let steps = vec![
            step(1, "store x := 1", &["T1 buffer: [x=1 (a.c:1)]"]),
            step(1, "load x", &["→ 1"]),
            step(2, "load y", &["→ 0"]),
            step(2, "load x", &["→ 0"]),
            step(
                2,
                "locked add z 1",
                &[
                    "flush: T1's x=1 (a.c:1) now counts as written",
                    "T1 buffer: [x=1 (flushed)]",
                ],
            ),
            step(2, "load x", &["→ 1"]),
            step(2, "fence", &["T1 buffer: []"]),
        ];
        let lanes = Lanes::of(&steps);
        let stale: Vec<bool> = lanes.rows.iter().map(|r| r.stale.is_some()).collect();
        assert_eq!(stale, [false, false, false, true, false, false, false]);
        assert_eq!(lanes.rows[0].stored, vec![0]);
        assert_eq!(lanes.rows[3].read.as_deref(), Some("0"));
        let entry = &lanes.entries[0];
        assert_eq!(
            (entry.start, entry.marked, entry.end),
            (0, Some(4), Some(6))
        );
        assert_eq!(lanes.rows[4].flushes.len(), 1);
        assert!(lanes.rows[4].flushes[0].marked_only);
        assert!(!lanes.rows[6].flushes[0].marked_only);
    }

    /// Entries keep their column while they sit in the buffer; a freed column is reused.
    #[test]
    fn entries_take_the_first_free_column() {
        let steps = vec![
            step(1, "store a := 1", &["T1 buffer: [a=1 (a.c:1)]"]),
            step(
                1,
                "store b := 1",
                &["T1 buffer: [a=1 (a.c:1), b=1 (a.c:2)]"],
            ),
            step(
                2,
                "load a",
                &[
                    "flush: T1 writes a=1 (a.c:1) to memory",
                    "T1 buffer: [b=1 (a.c:2)]",
                ],
            ),
            step(
                1,
                "store c := 1",
                &["T1 buffer: [b=1 (a.c:2), c=1 (a.c:3)]"],
            ),
        ];
        let lanes = Lanes::of(&steps);
        let slots: Vec<usize> = lanes.entries.iter().map(|e| e.slot).collect();
        assert_eq!(slots, [0, 1, 0]);
        assert_eq!(lanes.entries[0].end, Some(2));
        assert_eq!(lanes.rows[2].flushes.len(), 1);
        assert_eq!(lanes.slots(), 2);
    }
}
