//! Figures 3–5 of "Model Checking of C++ Programs under the x86-TSO Memory Model" (Štill,
//! Barnat) as a step-by-step test.
//!
//! Reconstruction (from the figures' TikZ source in the thesis chapter based on
//! that paper, which the paper's captions describe): store buffer 1 holds, oldest first,
//! `x←1, y←1, x←2, y←2`; store buffer 2 holds `x←3, y←3`; thread 0 runs
//! `a = y; b = x;`. Figure 4: the load of y read 2 from buffer 1, so `y←1`
//! and `y←2` reached memory, `y←3` did not, and the x entries of buffer 1
//! are now flushed (x←1 is then dropped as shadowed by x←2). Figure 5: the load of x read 3 from buffer 2; the flushed
//! x entries were placed before it, and only `y←3` is left.

use super::*;

const X: u32 = 1;
const Y: u32 = 2;

fn x() -> Range {
    Range::new(X, 0, 4)
}

fn y() -> Range {
    Range::new(Y, 0, 4)
}

fn name(r: Range) -> String {
    match r.addr.object {
        X => "x".into(),
        Y => "y".into(),
        other => format!("obj{other}"),
    }
}

#[derive(Default)]
struct Replay {
    script: Vec<usize>,
    next: usize,
    arities: Vec<usize>,
    /// What each flush choice said its options leave delayed.
    delayed: Vec<Vec<u32>>,
}

impl Choice for Replay {
    fn choose(&mut self, n: usize) -> usize {
        assert!(n >= 2, "asked a choice among {n}");
        let answer = self.script.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        self.arities.push(n);
        answer
    }

    fn choose_flush(&mut self, delayed: &[u32]) -> usize {
        self.delayed.push(delayed.to_vec());
        self.choose(delayed.len())
    }
}

/// Entries of all threads not yet known to be in memory.
fn unflushed_total(bufs: &StoreBuffers) -> u32 {
    bufs.threads().map(|t| bufs.unflushed_len(t) as u32).sum()
}

type World = (StoreBuffers, FlatMemory);

/// Every distinct successor of a load, with the loaded value.
fn load_outcomes(world: &World, thread: ThreadId, range: Range) -> Vec<(World, u64)> {
    let mut results = Vec::new();
    let mut answer = 0;
    loop {
        let (mut bufs, mut mem) = world.clone();
        let mut replay = Replay {
            script: vec![answer],
            ..Replay::default()
        };
        let value = bufs
            .load(&mut mem, &mut replay, thread, range)
            .expect("load");
        assert!(replay.arities.len() <= 1, "a load asks at most one choice");
        // Every choice is a flush choice, and its count for the option taken is
        // what the successor really leaves delayed.
        assert_eq!(replay.delayed.len(), replay.arities.len());
        if let Some(delayed) = replay.delayed.first() {
            assert_eq!(delayed.len(), replay.arities[0]);
            assert_eq!(delayed[answer], unflushed_total(&bufs));
        }
        results.push(((bufs, mem), value.to_int()));
        match replay.arities.first() {
            Some(&n) if answer + 1 < n => answer += 1,
            _ => return results,
        }
    }
}

fn mem_value(mem: &FlatMemory, range: Range) -> u64 {
    mem.read(range).expect("read").to_int()
}

fn store(world: &mut World, thread: ThreadId, range: Range, value: u64, origin: u32) {
    let mut replay = Replay::default();
    world
        .0
        .store(
            &mut world.1,
            &mut replay,
            thread,
            range,
            Payload::from_int(value, 4),
            origin,
            0,
        )
        .expect("store");
    assert!(
        replay.arities.is_empty(),
        "an unbounded store never chooses"
    );
}

#[test]
fn figures_3_to_5_delayed_flushing() {
    let mut mem = FlatMemory::new();
    mem.add_object(X, 4);
    mem.add_object(Y, 4);
    let mut world: World = (StoreBuffers::new(), mem);
    store(&mut world, 1, x(), 1, 10);
    store(&mut world, 1, y(), 1, 11);
    store(&mut world, 1, x(), 2, 12);
    store(&mut world, 1, y(), 2, 13);
    store(&mut world, 2, x(), 3, 20);
    store(&mut world, 2, y(), 3, 21);

    // Figure 3.
    assert_eq!(
        world.0.describe(1, name),
        "[x=1 (origin 10), y=1 (origin 11), x=2 (origin 12), y=2 (origin 13)]"
    );
    assert_eq!(
        world.0.describe(2, name),
        "[x=3 (origin 20), y=3 (origin 21)]"
    );

    // `a = y`: any of the y values (or the initial 0) may be read.
    let step1 = load_outcomes(&world, 0, y());
    let values: std::collections::BTreeSet<u64> = step1.iter().map(|(_, v)| *v).collect();
    assert_eq!(values, [0, 1, 2, 3].into_iter().collect());
    // Figure 4: y←2 read from buffer 1, buffer 2 untouched.
    let fig4: Vec<&(World, u64)> = step1
        .iter()
        .filter(|((bufs, _), v)| *v == 2 && bufs.entries(2).len() == 2)
        .collect();
    assert_eq!(fig4.len(), 1, "exactly one successor matches Figure 4");
    let ((bufs, mem), _) = fig4[0].clone();
    // The figure shows `x←1, x←2` both flushed. We also forget x←1: a flushed
    // entry wholly overwritten by a newer flushed entry of its own buffer can
    // never be read again (see `drop_shadowed_flushed`).
    assert_eq!(bufs.describe(1, name), "[x=2 (flushed)]");
    assert_eq!(bufs.describe(2, name), "[x=3 (origin 20), y=3 (origin 21)]");
    assert_eq!(mem_value(&mem, y()), 2);
    assert_eq!(
        mem_value(&mem, x()),
        0,
        "flushed entries are not placed in memory yet"
    );

    // `b = x`: the flushed x←1, x←2 must be placed; x←3 may come before or after.
    let world4: World = (bufs, mem);
    let step2 = load_outcomes(&world4, 0, x());
    let values: std::collections::BTreeSet<u64> = step2.iter().map(|(_, v)| *v).collect();
    assert_eq!(
        values,
        [2, 3].into_iter().collect(),
        "x=0 and x=1 are no longer possible"
    );
    for ((bufs, _), _) in &step2 {
        assert!(bufs.is_empty(1), "flushed x entries always reach memory");
    }
    // Figure 5: x read 3 from buffer 2.
    let fig5: Vec<&(World, u64)> = step2.iter().filter(|(_, v)| *v == 3).collect();
    assert_eq!(fig5.len(), 1);
    let ((bufs, mem), _) = fig5[0].clone();
    assert!(bufs.is_empty(1));
    assert_eq!(bufs.describe(2, name), "[y=3 (origin 21)]");
    assert_eq!(mem_value(&mem, x()), 3);
    assert_eq!(mem_value(&mem, y()), 2);
    // y←3 was proved to come after the first load; nothing else orders it.
    assert_eq!(bufs.entries(2)[0].after_count(1), 0);
}

#[test]
fn load_with_nothing_buffered_asks_no_choice() {
    let mut mem = FlatMemory::new();
    mem.add_object(X, 4);
    let world: World = (StoreBuffers::new(), mem);
    let outcomes = load_outcomes(&world, 0, x());
    assert_eq!(outcomes.len(), 1);
    assert_eq!(outcomes[0].1, 0);
}

#[test]
fn flush_choices_count_the_stores_each_option_leaves_delayed() {
    let mut mem = FlatMemory::new();
    mem.add_object(X, 4);
    mem.add_object(Y, 4);
    let mut world: World = (StoreBuffers::new(), mem);
    store(&mut world, 1, x(), 1, 10);
    store(&mut world, 1, y(), 1, 11);
    store(&mut world, 1, x(), 2, 12);
    // Thread 0 loads x: buffer 1 wrote none, one or both of its x stores first.
    // Writing x←1 leaves y←1 and x←2 delayed; writing x←2 also flushes y←1.
    let mut replay = Replay {
        script: vec![0],
        ..Replay::default()
    };
    let (mut bufs, mut mem) = world.clone();
    bufs.load(&mut mem, &mut replay, 0, x()).expect("load");
    assert_eq!(replay.delayed, vec![vec![3, 2, 0]]);
    let values: Vec<u64> = load_outcomes(&world, 0, x())
        .iter()
        .map(|(_, v)| *v)
        .collect();
    assert_eq!(values, vec![0, 1, 2], "options in the order of the counts");
}

#[test]
fn reference_machine_flush_choices_count_what_stopping_leaves_delayed() {
    let mut mem = FlatMemory::new();
    mem.add_object(X, 4);
    mem.add_object(Y, 4);
    let mut bufs = ReferenceBuffers::new();
    for (thread, range, value) in [(1, x(), 1), (1, y(), 1), (2, x(), 3)] {
        bufs.store(&mut mem, thread, range, Payload::from_int(value, 4), 0, 0)
            .expect("store");
    }
    // Flush thread 1's oldest entry (option 1), then stop (option 0).
    let mut replay = Replay {
        script: vec![1, 0],
        ..Replay::default()
    };
    bufs.flush_any(&mut mem, &mut replay).expect("flush");
    // Stopping first would have left all three stores delayed, then the two left.
    assert_eq!(replay.delayed, vec![vec![3, 0, 0], vec![2, 0, 0]]);
    assert_eq!(mem_value(&mem, x()), 1);
    assert_eq!(bufs.len(1) + bufs.len(2), 2);
}

/// Fences are remembered by the buffers' layout (`memo`), payloads aside: a fence
/// after one with the same layout writes its own values, and one whose other buffers
/// differ gets its own outcome (thread 2's store stays buffered, or is ordered).
#[test]
fn remembered_fences_follow_each_worlds_buffers() {
    let world = || {
        let mut mem = FlatMemory::new();
        mem.add_object(X, 4);
        mem.add_object(Y, 4);
        (StoreBuffers::default(), mem)
    };
    let fence = |w: &mut World, thread: ThreadId| {
        let mut replay = Replay::default();
        w.0.fence(&mut w.1, &mut replay, thread).expect("fence");
        replay.arities
    };
    for value in [1, 7] {
        let mut w = world();
        store(&mut w, 1, x(), value, 0);
        assert!(fence(&mut w, 1).is_empty());
        assert_eq!(mem_value(&w.1, x()), value);
        assert!(w.0.is_empty(1));
    }
    let mut w = world();
    store(&mut w, 1, x(), 1, 0);
    store(&mut w, 2, y(), 5, 0);
    assert!(fence(&mut w, 1).is_empty());
    assert_eq!(mem_value(&w.1, x()), 1);
    assert_eq!(mem_value(&w.1, y()), 0);
    assert!(w.0.is_empty(1));
    assert_eq!(w.0.unflushed_len(2), 1);
    let mut w = world();
    store(&mut w, 1, x(), 1, 0);
    store(&mut w, 2, x(), 9, 0);
    let asked = fence(&mut w, 1);
    assert!(
        asked.len() == 1 && asked[0] >= 2,
        "thread 2's x may reach memory before thread 1's or not: {asked:?}"
    );
}
