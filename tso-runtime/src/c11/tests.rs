//! The view machine's bookkeeping rules, step by step: what each access may read,
//! collection of dead messages, the history bound, mixed sizes, canonical bytes.

use super::{C11Error, C11Memory, Order};
use crate::buffer::{Choice, FlatMemory, Payload, Range};

const OBJ: u32 = 1;

fn x() -> Range {
    Range::new(OBJ, 0, 4)
}

fn flat() -> FlatMemory {
    let mut m = FlatMemory::new();
    m.add_object(OBJ, 8);
    m.add_object(2, 8);
    m
}

/// Answers `answer` and records the number of options asked.
struct Pick {
    answer: usize,
    asked: Vec<usize>,
}

impl Choice for Pick {
    fn choose(&mut self, n: usize) -> usize {
        self.asked.push(n);
        self.answer
    }
}

fn pick(answer: usize) -> Pick {
    Pick {
        answer,
        asked: Vec::new(),
    }
}

fn int(p: Payload) -> u64 {
    p.to_int()
}

fn store(c: &mut C11Memory, m: &mut FlatMemory, t: u32, r: Range, v: u64, o: Order) {
    let mut ch = pick(0);
    c.store(m, &mut ch, t, r, Payload::from_int(v, r.len), o)
        .expect("store");
}

#[test]
fn a_relaxed_load_chooses_among_messages_not_older_than_its_view() {
    let (mut c, mut m) = (C11Memory::new(0), flat());
    c.spawn(0, 1);
    c.spawn(0, 2);
    store(&mut c, &mut m, 1, x(), 7, Order::Relaxed);
    let mut ch = pick(1);
    let v = c
        .load(&mut m, &mut ch, 2, x(), Order::Relaxed)
        .expect("load");
    assert_eq!(ch.asked, vec![2], "0 and 7 are both readable");
    assert_eq!(int(v), 7);
    // Having read 7, thread 2 can no longer read 0.
    let mut ch = pick(0);
    let v = c
        .load(&mut m, &mut ch, 2, x(), Order::Relaxed)
        .expect("load");
    assert!(ch.asked.is_empty());
    assert_eq!(int(v), 7);
}

#[test]
fn a_racy_non_atomic_load_reads_what_a_relaxed_one_could_without_acquiring() {
    // x86 runs a plain load as it runs a relaxed one: thread 2 may read 7, which it
    // has not seen (a race), and learns nothing from its release message.
    let (mut c, mut m) = (C11Memory::new(0), flat());
    let y = Range::new(OBJ, 4, 4);
    c.spawn(0, 1);
    c.spawn(0, 2);
    store(&mut c, &mut m, 1, y, 1, Order::Relaxed);
    store(&mut c, &mut m, 1, x(), 7, Order::Release);
    let mut ch = pick(1);
    let v = c
        .load(&mut m, &mut ch, 2, x(), Order::NonAtomic)
        .expect("load");
    assert_eq!(ch.asked, vec![2], "0 and 7 are both readable");
    assert_eq!(int(v), 7);
    let mut ch = pick(0);
    let v = c.load(&mut m, &mut ch, 2, y, Order::Relaxed).expect("load");
    assert_eq!(ch.asked, vec![2], "y=0 is still readable: nothing acquired");
    assert_eq!(int(v), 0);
}

#[test]
fn a_race_free_non_atomic_load_has_one_message_to_read() {
    let (mut c, mut m) = (C11Memory::new(0), flat());
    c.spawn(0, 1);
    store(&mut c, &mut m, 1, x(), 7, Order::NonAtomic);
    c.join(0, 1);
    let mut ch = pick(0);
    let v = c
        .load(&mut m, &mut ch, 0, x(), Order::NonAtomic)
        .expect("load");
    assert!(ch.asked.is_empty(), "the newest message is the only one");
    assert_eq!(int(v), 7);
}

#[test]
fn a_racy_non_atomic_store_takes_the_places_a_relaxed_one_could() {
    // Thread 2 has not seen 7: its store may go before it in mo (racy), or after.
    for (answer, last) in [(0, 7), (1, 9)] {
        let (mut c, mut m) = (C11Memory::new(0), flat());
        c.spawn(0, 1);
        c.spawn(0, 2);
        store(&mut c, &mut m, 1, x(), 7, Order::Relaxed);
        let mut ch = pick(answer);
        c.store(
            &mut m,
            &mut ch,
            2,
            x(),
            Payload::from_int(9, 4),
            Order::NonAtomic,
        )
        .expect("store");
        assert_eq!(ch.asked, vec![2]);
        let newest = c.history(x()).last().cloned().expect("a message");
        assert_eq!(int(newest), last);
    }
    // Once thread 2 has seen 7, only the end is left.
    let (mut c, mut m) = (C11Memory::new(0), flat());
    c.spawn(0, 1);
    store(&mut c, &mut m, 1, x(), 7, Order::Relaxed);
    c.join(0, 1);
    let mut ch = pick(0);
    c.store(
        &mut m,
        &mut ch,
        0,
        x(),
        Payload::from_int(9, 4),
        Order::NonAtomic,
    )
    .expect("store");
    assert!(ch.asked.is_empty());
}

#[test]
fn a_non_atomic_load_after_an_sc_fence_reads_a_message_the_sc_order_allows() {
    // Thread 0's SC fence, then an SC store to x by thread 1 placed before it in the
    // SC order: x=0 is then forbidden (psc_F would close a cycle through rb), so
    // the load must read 1; reading only its own view, it had no outcome at all.
    let (mut c, mut m) = (C11Memory::new(0), flat());
    c.spawn(0, 1);
    assert!(c.fence(&mut pick(0), 0, Order::SeqCst));
    let mut ch = pick(0);
    c.store(
        &mut m,
        &mut ch,
        1,
        x(),
        Payload::from_int(1, 4),
        Order::SeqCst,
    )
    .expect("store");
    assert_eq!(ch.asked, vec![2], "before or after the fence");
    let mut ch = pick(0);
    let v = c
        .load(&mut m, &mut ch, 0, x(), Order::NonAtomic)
        .expect("an outcome");
    assert!(ch.asked.is_empty(), "only 1 is consistent");
    assert_eq!(int(v), 1);
}

#[test]
fn joining_a_thread_makes_its_stores_visible() {
    let (mut c, mut m) = (C11Memory::new(0), flat());
    c.spawn(0, 1);
    store(&mut c, &mut m, 1, x(), 7, Order::Relaxed);
    c.join(0, 1);
    let mut ch = pick(0);
    let v = c
        .load(&mut m, &mut ch, 0, x(), Order::Relaxed)
        .expect("load");
    assert!(ch.asked.is_empty());
    assert_eq!(int(v), 7);
    assert_eq!(
        c.history(x()).len(),
        1,
        "the initial 0 is dead once all saw 7"
    );
}

#[test]
fn dead_messages_are_dropped_and_timestamps_renumbered() {
    // Two ways to reach "every thread has seen 2": their states serialise alike.
    let build = |values: &[u64]| {
        let (mut c, mut m) = (C11Memory::new(0), flat());
        c.spawn(0, 1);
        c.spawn(0, 2);
        for &v in values {
            store(&mut c, &mut m, 1, x(), v, Order::Relaxed);
        }
        let mut ch = pick(values.len());
        let v = c
            .load(&mut m, &mut ch, 2, x(), Order::Relaxed)
            .expect("load");
        assert_eq!(int(v), 2);
        let mut ch = pick(values.len());
        c.load(&mut m, &mut ch, 0, x(), Order::Relaxed)
            .expect("load");
        let mut bytes = Vec::new();
        c.serialize_into(&mut bytes);
        (c, bytes)
    };
    let (long, long_bytes) = build(&[1, 3, 2]);
    let (short, short_bytes) = build(&[2]);
    assert_eq!(long.history(x()), vec![Payload::from_int(2, 4)]);
    assert_eq!(long_bytes, short_bytes);
    assert_eq!(long, short);
}

#[test]
fn the_history_bound_drops_readable_messages_and_says_so() {
    let (mut c, mut m) = (C11Memory::new(2), flat());
    c.spawn(0, 1);
    c.spawn(0, 2);
    store(&mut c, &mut m, 1, x(), 1, Order::Relaxed);
    assert!(!c.bound_hit(), "0 and 1 fit in a bound of 2");
    store(&mut c, &mut m, 1, x(), 2, Order::Relaxed);
    assert!(c.bound_hit(), "thread 2 could still read 0");
    assert_eq!(c.history(x()).len(), 2);
    // A bound that only meets dead messages is not hit.
    let (mut c, mut m) = (C11Memory::new(1), flat());
    store(&mut c, &mut m, 0, x(), 1, Order::Relaxed);
    store(&mut c, &mut m, 0, x(), 2, Order::Relaxed);
    assert!(!c.bound_hit());
}

#[test]
fn mixed_sizes_are_refused_while_the_history_is_unsettled() {
    let (mut c, mut m) = (C11Memory::new(0), flat());
    c.spawn(0, 1);
    c.spawn(0, 2);
    store(&mut c, &mut m, 1, x(), 0x0403_0201, Order::Relaxed);
    let byte = Range::new(OBJ, 1, 1);
    let mut ch = pick(0);
    let refused = c.load(&mut m, &mut ch, 2, byte, Order::Relaxed);
    assert!(matches!(
        refused,
        Err(C11Error::MixedSize { messages: 2, .. })
    ));
    // Once everyone has seen the store, the byte is read from it.
    let mut ch = pick(1);
    c.load(&mut m, &mut ch, 2, x(), Order::Relaxed)
        .expect("load");
    c.load(&mut m, &mut ch, 0, x(), Order::Relaxed)
        .expect("load");
    let v = c
        .load(&mut m, &mut ch, 2, byte, Order::Relaxed)
        .expect("settled");
    assert_eq!(int(v), 2);
    assert!(c.history(x()).is_empty(), "the wider location was retired");
}

#[test]
fn the_mapped_serialisation_renames_and_reorders_objects() {
    let run = |first: u32, second: u32| {
        let (mut c, mut m) = (C11Memory::new(0), flat());
        c.spawn(0, 1);
        store(
            &mut c,
            &mut m,
            1,
            Range::new(first, 0, 4),
            1,
            Order::Release,
        );
        store(
            &mut c,
            &mut m,
            1,
            Range::new(second, 4, 4),
            2,
            Order::Relaxed,
        );
        c
    };
    let a = run(1, 2);
    let b = run(2, 1);
    let swap = |p: u64| match p >> 32 {
        1 => (2 << 32) | (p & 0xffff_ffff),
        2 => (1 << 32) | (p & 0xffff_ffff),
        _ => p,
    };
    let (mut mapped, mut plain) = (Vec::new(), Vec::new());
    a.serialize_mapped(&mut { swap }, &mut mapped);
    b.serialize_into(&mut plain);
    assert_eq!(mapped, plain);
    let mut unmapped = Vec::new();
    a.serialize_into(&mut unmapped);
    assert_ne!(unmapped, plain);
}

#[test]
fn the_state_decodes_from_its_bytes() {
    let (mut c, mut m) = (C11Memory::new(3), flat());
    c.spawn(0, 1);
    c.spawn(0, 2);
    store(&mut c, &mut m, 1, x(), 7, Order::Release);
    // A pointer to object 1, stored in object 2: both are renamed.
    let pointer = Payload::from_pointer((1 << 32) | 4);
    c.store(
        &mut m,
        &mut pick(0),
        2,
        Range::new(2, 0, 8),
        pointer,
        Order::SeqCst,
    )
    .expect("store");
    store(&mut c, &mut m, 2, Range::new(2, 0, 8), 5, Order::Relaxed);
    c.fence(&mut pick(0), 1, Order::SeqCst);
    let swap = |p: u64| match p >> 32 {
        1 => (2 << 32) | (p & 0xffff_ffff),
        2 => (1 << 32) | (p & 0xffff_ffff),
        _ => p,
    };
    let mut bytes = Vec::new();
    c.serialize_mapped(&mut { swap }, &mut bytes);
    let back = C11Memory::decode(&bytes, 3, &mut { swap }).expect("decodes");
    assert_eq!(back, c);
    let mut plain = Vec::new();
    c.serialize_into(&mut plain);
    let renamed = C11Memory::decode(&plain, 3, &mut { swap }).expect("decodes");
    assert!(
        renamed
            .history(Range::new(1, 0, 8))
            .contains(&Payload::from_pointer((2 << 32) | 4)),
        "the stored pointer is renamed with its object"
    );
    // Malformed bytes are refused, never misread.
    assert!(C11Memory::decode(&bytes[..bytes.len() - 1], 3, &mut { swap }).is_none());
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(C11Memory::decode(&longer, 3, &mut { swap }).is_none());
}

#[test]
fn a_non_atomic_store_releases_nothing() {
    let (mut c, mut m) = (C11Memory::new(0), flat());
    let y = Range::new(OBJ, 4, 4);
    c.spawn(0, 1);
    c.spawn(0, 2);
    store(&mut c, &mut m, 1, x(), 1, Order::Relaxed);
    c.fence(&mut pick(0), 1, Order::Release);
    store(&mut c, &mut m, 1, y, 1, Order::NonAtomic);
    let mut ch = pick(1);
    let v = c.load(&mut m, &mut ch, 2, y, Order::Acquire).expect("load");
    assert_eq!(int(v), 1);
    let mut ch = pick(0);
    c.load(&mut m, &mut ch, 2, x(), Order::Relaxed)
        .expect("load");
    assert_eq!(ch.asked, vec![2], "x=0 is still readable");
}

#[test]
fn a_primitive_release_and_acquire_transfer_the_view() {
    let (mut c, mut m) = (C11Memory::new(0), flat());
    let lock = super::LocKey {
        object: 2,
        offset: 0,
    };
    c.spawn(0, 1);
    c.spawn(0, 2);
    store(&mut c, &mut m, 1, x(), 7, Order::NonAtomic);
    // Before the release, thread 2 acquiring the lock learns nothing: 0 is readable.
    c.acquire_from(2, lock);
    let mut ch = pick(0);
    c.load(&mut m, &mut ch, 2, x(), Order::Relaxed)
        .expect("load");
    assert_eq!(ch.asked, vec![2], "0 and 7 are both readable");
    let (mut c, mut m) = (C11Memory::new(0), flat());
    c.spawn(0, 1);
    c.spawn(0, 2);
    store(&mut c, &mut m, 1, x(), 7, Order::NonAtomic);
    c.release_to(1, lock);
    c.acquire_from(2, lock);
    let mut ch = pick(0);
    let v = c
        .load(&mut m, &mut ch, 2, x(), Order::Relaxed)
        .expect("load");
    assert!(ch.asked.is_empty(), "only 7 is readable after the unlock");
    assert_eq!(int(v), 7);
    // What was released is part of the state, renamed with its object.
    let mut bytes = Vec::new();
    c.serialize_into(&mut bytes);
    let back = C11Memory::decode(&bytes, 0, &mut |p| p).expect("decodes");
    assert_eq!(back, c);
}

#[test]
fn a_released_object_takes_its_locations_and_releases_with_it() {
    let (mut c, mut m) = (C11Memory::new(0), flat());
    c.spawn(0, 1);
    store(&mut c, &mut m, 1, x(), 7, Order::Relaxed);
    store(&mut c, &mut m, 1, Range::new(2, 0, 4), 1, Order::Relaxed);
    c.release_to(
        1,
        super::LocKey {
            object: OBJ,
            offset: 0,
        },
    );
    assert_eq!(c.history(x()).len(), 2);
    c.forget_object(OBJ);
    assert!(c.history(x()).is_empty());
    assert_eq!(
        c.history(Range::new(2, 0, 4)).len(),
        2,
        "other objects stay"
    );
    let mut objects = Vec::new();
    c.for_each_pointer(&mut |p| objects.push(p >> 32));
    assert_eq!(objects, vec![2], "nothing names the released object");
}

#[test]
fn a_location_written_behind_the_machine_starts_again_from_memory() {
    let (mut c, mut m) = (C11Memory::new(0), flat());
    c.spawn(0, 1);
    store(&mut c, &mut m, 1, x(), 7, Order::Relaxed);
    assert_eq!(c.newest(x()).map(|p| p.to_int()), Some(7));
    c.restart(x());
    assert_eq!(c.newest(x()), None);
    assert!(c.history(x()).is_empty());
}

#[test]
fn a_non_atomic_store_repeating_the_newest_message_it_has_seen_adds_none() {
    let (mut c, mut m) = (C11Memory::new(0), flat());
    c.spawn(0, 1);
    c.spawn(0, 2);
    store(&mut c, &mut m, 1, x(), 7, Order::NonAtomic);
    let once = c.history(x());
    assert_eq!(once.len(), 2, "thread 2 may still read the initial 0");
    // A retry loop's body storing the same value again: nothing new to read.
    store(&mut c, &mut m, 1, x(), 7, Order::NonAtomic);
    assert_eq!(c.history(x()), once);
    // Another value is a new message, and the first one again after it too.
    store(&mut c, &mut m, 1, x(), 8, Order::NonAtomic);
    store(&mut c, &mut m, 1, x(), 7, Order::NonAtomic);
    assert_eq!(c.history(x()).len(), 4);
    // A relaxed store is an atomic event of its own.
    store(&mut c, &mut m, 1, x(), 7, Order::Relaxed);
    assert_eq!(c.history(x()).len(), 5);
    // Thread 2 has not seen 7 (a race): its store may go before it, so it is one.
    store(&mut c, &mut m, 2, x(), 7, Order::NonAtomic);
    assert_eq!(c.history(x()).len(), 6);
}
