//! Focused behaviour of the delayed-flush buffers: mixed-size overlap,
//! pointer provenance, eviction on free, bounds, locked operations, bypass,
//! state hooks.

mod buffer_support;

use std::collections::BTreeSet;

use buffer_support::{all_choices, Replay};
use tso_runtime::buffer::{
    BufferError, FlatMemory, FlatMemoryError, Payload, Range, ReferenceBuffers, SharedMemory,
    StoreBuffers,
};

type World = (StoreBuffers, FlatMemory);
type Err = BufferError<FlatMemoryError>;

const OBJ: u32 = 3;

fn world() -> World {
    let mut mem = FlatMemory::new();
    mem.add_object(OBJ, 16);
    (StoreBuffers::new(), mem)
}

fn no_choice() -> Replay {
    Replay {
        script: Vec::new(),
        next: 0,
        arities: Vec::new(),
    }
}

fn store(w: &mut World, thread: u32, range: Range, payload: Payload, bound: u32) {
    let mut c = no_choice();
    w.0.store(&mut w.1, &mut c, thread, range, payload, 0, bound)
        .expect("store");
}

/// All loaded payloads reachable by one load (with their successor worlds).
fn loads(w: &World, thread: u32, range: Range) -> Vec<(World, Payload)> {
    all_choices(w, |(b, m), c| b.load(m, c, thread, range).expect("load"))
        .into_iter()
        .map(|(w, p, _)| (w, p))
        .collect()
}

fn values(results: &[(World, Payload)]) -> BTreeSet<u64> {
    results.iter().map(|(_, p)| p.to_int()).collect()
}

#[test]
fn two_byte_load_inside_own_eight_byte_store() {
    let mut w = world();
    store(
        &mut w,
        0,
        Range::new(OBJ, 0, 8),
        Payload::from_int(0x0807_0605_0403_0201, 8),
        0,
    );
    let own = loads(&w, 0, Range::new(OBJ, 3, 2));
    assert_eq!(
        values(&own),
        BTreeSet::from([0x0504]),
        "own thread forwards from its buffer, no choice"
    );
    assert_eq!(own.len(), 1);
}

#[test]
fn two_byte_load_inside_other_threads_eight_byte_store() {
    let mut w = world();
    store(
        &mut w,
        0,
        Range::new(OBJ, 0, 8),
        Payload::from_int(0x0807_0605_0403_0201, 8),
        0,
    );
    let other = loads(&w, 1, Range::new(OBJ, 3, 2));
    assert_eq!(values(&other), BTreeSet::from([0, 0x0504]));
    // Reading the store places it in memory; not reading it proves it later.
    for ((bufs, mem), p) in &other {
        let in_memory = mem.read(Range::new(OBJ, 0, 8)).expect("read").to_int();
        if p.to_int() == 0 {
            assert_eq!(bufs.entries(0).len(), 1);
            assert_eq!(in_memory, 0);
        } else {
            assert!(bufs.is_empty(0));
            assert_eq!(in_memory, 0x0807_0605_0403_0201);
        }
    }
}

#[test]
fn unaligned_load_merges_own_entries_and_memory_per_byte() {
    let mut w = world();
    store(
        &mut w,
        0,
        Range::new(OBJ, 0, 2),
        Payload::from_int(0x1111, 2),
        0,
    );
    store(
        &mut w,
        1,
        Range::new(OBJ, 0, 4),
        Payload::from_int(0x2222_2222, 4),
        0,
    );
    let got = values(&loads(&w, 0, Range::new(OBJ, 0, 4)));
    // Own bytes 0..2 unless own store already reached memory and the other
    // thread's store landed on top; bytes 2..4 from memory.
    let expected = BTreeSet::from([0x0000_1111, 0x2222_1111, 0x2222_2222]);
    assert_eq!(got, expected);
    // The reference machine agrees on the values it can produce.
    let mut reference_values = BTreeSet::new();
    for flush_other_first in [false, true] {
        for flush_own in [false, true] {
            for flush_other_last in [false, true] {
                let mut mem = FlatMemory::new();
                mem.add_object(OBJ, 16);
                let mut r = ReferenceBuffers::new();
                r.store(
                    &mut mem,
                    0,
                    Range::new(OBJ, 0, 2),
                    Payload::from_int(0x1111, 2),
                    0,
                    0,
                )
                .expect("store");
                r.store(
                    &mut mem,
                    1,
                    Range::new(OBJ, 0, 4),
                    Payload::from_int(0x2222_2222, 4),
                    0,
                    0,
                )
                .expect("store");
                if flush_other_first {
                    r.flush_one(&mut mem, 1).expect("flush");
                }
                if flush_own {
                    r.flush_one(&mut mem, 0).expect("flush");
                }
                if flush_other_last && !flush_other_first {
                    r.flush_one(&mut mem, 1).expect("flush");
                }
                reference_values.insert(
                    r.load(&mem, 0, Range::new(OBJ, 0, 4))
                        .expect("load")
                        .to_int(),
                );
            }
        }
    }
    assert_eq!(got, reference_values);
}

#[test]
fn pointer_survives_whole_and_degrades_when_split() {
    let pointer = (9u64 << 32) | 0x40;
    let mut w = world();
    store(
        &mut w,
        0,
        Range::new(OBJ, 8, 8),
        Payload::from_pointer(pointer),
        0,
    );
    // Own load of the whole pointer, embedded in a 16-byte load.
    let whole = loads(&w, 0, Range::new(OBJ, 0, 16));
    assert_eq!(whole.len(), 1);
    assert_eq!(whole[0].1.ptr_offsets, vec![8]);
    // A partial load is plain bytes.
    let part = loads(&w, 0, Range::new(OBJ, 8, 4));
    assert!(part[0].1.ptr_offsets.is_empty());
    assert_eq!(part[0].1.to_int(), 0x40);
    // Overwriting one byte of the pointer degrades it in the merged load.
    store(
        &mut w,
        0,
        Range::new(OBJ, 10, 1),
        Payload::from_int(0xff, 1),
        0,
    );
    let split = loads(&w, 0, Range::new(OBJ, 8, 8));
    assert!(split[0].1.ptr_offsets.is_empty());
    // Another thread reading the pointer from memory after a fence keeps provenance.
    let mut w2 = world();
    store(
        &mut w2,
        0,
        Range::new(OBJ, 0, 8),
        Payload::from_pointer(pointer),
        0,
    );
    let mut c = no_choice();
    w2.0.fence(&mut w2.1, &mut c, 0).expect("fence");
    let other = loads(&w2, 1, Range::new(OBJ, 0, 8));
    assert_eq!(other.len(), 1);
    assert_eq!(other[0].1.ptr_offsets, vec![0]);
    assert_eq!(other[0].1.to_int(), pointer);
}

#[test]
fn renumbering_hooks_reach_pointers_and_objects() {
    let mut w = world();
    let pointer = (9u64 << 32) | 0x40;
    store(
        &mut w,
        0,
        Range::new(OBJ, 0, 8),
        Payload::from_pointer(pointer),
        0,
    );
    let before = w.0.clone();
    w.0.for_each_pointer_mut(|p| *p = (4u64 << 32) | (*p & 0xffff_ffff));
    w.0.for_each_object_mut(|o| *o += 100);
    assert_ne!(before, w.0);
    let entry = &w.0.entries(0)[0];
    assert_eq!(entry.range.addr.object, OBJ + 100);
    assert_eq!(entry.payload.to_int(), (4u64 << 32) | 0x40);
    assert_eq!(entry.payload.ptr_offsets, vec![0]);
}

#[test]
fn evict_drops_own_entries_and_reports_other_threads_pending_stores() {
    let mut w = world();
    w.1.add_object(5, 8);
    store(&mut w, 0, Range::new(5, 0, 4), Payload::from_int(7, 4), 0);
    store(&mut w, 0, Range::new(OBJ, 0, 4), Payload::from_int(8, 4), 0);
    w.0.evict::<FlatMemoryError>(0, 5)
        .expect("own entries may be dropped");
    assert_eq!(w.0.entries(0).len(), 1);
    assert_eq!(w.0.entries(0)[0].range.addr.object, OBJ);
    assert_eq!(
        w.1.read(Range::new(5, 0, 4)).expect("read").to_int(),
        0,
        "dropped, never written"
    );

    let mut c = no_choice();
    w.0.store(
        &mut w.1,
        &mut c,
        1,
        Range::new(5, 0, 4),
        Payload::from_int(9, 4),
        77,
        0,
    )
    .expect("store");
    let verdict = w.0.evict::<FlatMemoryError>(0, 5);
    assert!(
        matches!(
            verdict,
            Err(BufferError::StoreToReleasedMemory {
                thread: 1,
                origin: 77
            })
        ),
        "{verdict:?}"
    );
}

#[test]
fn evict_drops_flushed_entries_of_other_threads() {
    let mut w = world();
    w.1.add_object(5, 8);
    // Thread 1: store to object 5, then to OBJ. Thread 0 reads OBJ and sees
    // the second store, so the first one is known to be in memory (flushed).
    store(&mut w, 1, Range::new(5, 0, 4), Payload::from_int(9, 4), 0);
    store(&mut w, 1, Range::new(OBJ, 0, 4), Payload::from_int(1, 4), 0);
    let seen: Vec<World> = loads(&w, 0, Range::new(OBJ, 0, 4))
        .into_iter()
        .filter(|(_, p)| p.to_int() == 1)
        .map(|(w, _)| w)
        .collect();
    assert_eq!(seen.len(), 1);
    let mut w = seen[0].clone();
    assert!(w.0.entries(1)[0].flushed);
    w.0.evict::<FlatMemoryError>(0, 5)
        .expect("flushed entries are not a race");
    assert!(w.0.is_empty(1));
}

#[test]
fn bound_evicts_oldest_entry_to_memory() {
    let mut w = world();
    store(&mut w, 0, Range::new(OBJ, 0, 4), Payload::from_int(1, 4), 1);
    store(&mut w, 0, Range::new(OBJ, 4, 4), Payload::from_int(2, 4), 1);
    assert_eq!(w.0.entries(0).len(), 1);
    assert_eq!(w.1.read(Range::new(OBJ, 0, 4)).expect("read").to_int(), 1);
    assert_eq!(w.1.read(Range::new(OBJ, 4, 4)).expect("read").to_int(), 0);
}

#[test]
fn bounded_eviction_may_let_other_threads_matching_store_land_first() {
    let mut w = world();
    store(&mut w, 1, Range::new(OBJ, 0, 4), Payload::from_int(5, 4), 0);
    store(&mut w, 0, Range::new(OBJ, 0, 4), Payload::from_int(1, 4), 1);
    let results = all_choices(&w, |(b, m), c| {
        b.store(
            m,
            c,
            0,
            Range::new(OBJ, 8, 4),
            Payload::from_int(2, 4),
            0,
            1,
        )
        .expect("store")
    });
    let finals: BTreeSet<(u64, usize)> = results
        .iter()
        .map(|((b, m), _, _)| {
            (
                m.read(Range::new(OBJ, 0, 4)).expect("read").to_int(),
                b.entries(1).len(),
            )
        })
        .collect();
    // Thread 1's store: still buffered (memory shows thread 0's 1), or placed
    // before (memory 1) or after (memory 5) the evicted entry.
    assert_eq!(finals, BTreeSet::from([(1, 1), (1, 0), (5, 0)]));
}

#[test]
fn locked_cmpxchg_drains_own_buffer_and_acts_on_memory() {
    let mut w = world();
    store(&mut w, 0, Range::new(OBJ, 0, 4), Payload::from_int(3, 4), 0);
    let mut c = no_choice();
    let old =
        w.0.locked_rmw(&mut w.1, &mut c, 0, Range::new(OBJ, 0, 4), |old| {
            (old.to_int() == 3).then(|| Payload::from_int(4, 4))
        })
        .expect("cas");
    assert_eq!(old.to_int(), 3);
    assert!(w.0.is_empty(0));
    assert_eq!(w.1.read(Range::new(OBJ, 0, 4)).expect("read").to_int(), 4);
    let old =
        w.0.locked_rmw(&mut w.1, &mut c, 0, Range::new(OBJ, 0, 4), |old| {
            (old.to_int() == 3).then(|| Payload::from_int(5, 4))
        })
        .expect("cas");
    assert_eq!(
        old.to_int(),
        4,
        "failed compare-exchange returns the current value"
    );
    assert_eq!(w.1.read(Range::new(OBJ, 0, 4)).expect("read").to_int(), 4);
}

#[test]
fn unshared_accesses_bypass_buffers_unless_an_entry_overlaps() {
    let mut w = world();
    let mut c = no_choice();
    w.0.store_unshared(
        &mut w.1,
        &mut c,
        0,
        Range::new(OBJ, 0, 4),
        Payload::from_int(6, 4),
        0,
        0,
    )
    .expect("store");
    assert!(w.0.is_empty(0));
    assert_eq!(w.1.read(Range::new(OBJ, 0, 4)).expect("read").to_int(), 6);
    store(&mut w, 0, Range::new(OBJ, 4, 4), Payload::from_int(7, 4), 0);
    w.0.store_unshared(
        &mut w.1,
        &mut c,
        0,
        Range::new(OBJ, 4, 2),
        Payload::from_int(8, 2),
        0,
        0,
    )
    .expect("store");
    assert_eq!(
        w.0.entries(0).len(),
        2,
        "overlapping own entry: the store is buffered behind it"
    );
    let v =
        w.0.load_unshared(&mut w.1, &mut c, 0, Range::new(OBJ, 4, 4))
            .expect("load");
    // Bytes 4..6 from the newer 2-byte entry (8), bytes 6..8 from the older (7 >> 16 = 0).
    assert_eq!(v.to_int(), 8);
}

#[test]
fn serialisation_is_deterministic_and_distinguishes_states() {
    let mut a = world();
    store(&mut a, 0, Range::new(OBJ, 0, 4), Payload::from_int(1, 4), 0);
    store(&mut a, 2, Range::new(OBJ, 4, 4), Payload::from_int(2, 4), 0);
    let mut b = world();
    store(&mut b, 2, Range::new(OBJ, 4, 4), Payload::from_int(2, 4), 0);
    store(&mut b, 0, Range::new(OBJ, 0, 4), Payload::from_int(1, 4), 0);
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    a.0.serialize_into(&mut sa);
    b.0.serialize_into(&mut sb);
    assert_eq!(sa, sb);
    assert_eq!(a.0, b.0);
    store(&mut b, 0, Range::new(OBJ, 0, 4), Payload::from_int(3, 4), 0);
    let mut sc = Vec::new();
    b.0.serialize_into(&mut sc);
    assert_ne!(sa, sc);
}

#[test]
fn store_of_wrong_length_is_an_error() {
    let mut w = world();
    let mut c = no_choice();
    let r: Result<(), Err> = w.0.store(
        &mut w.1,
        &mut c,
        0,
        Range::new(OBJ, 0, 4),
        Payload::from_int(1, 2),
        0,
        0,
    );
    assert!(matches!(
        r,
        Err(BufferError::PayloadLength {
            expected: 4,
            actual: 2
        })
    ));
}

/// A buffered store carries the definedness of its bytes (the engine's undefined-bit
/// masks): a load forwarded from the buffer gets exactly the stored bytes' masks, a
/// load mixing buffered and memory bytes gets each byte's own, and the flush writes
/// them to memory. A later defined store hides the undefined one.
#[test]
fn buffered_stores_carry_their_undefined_bits() {
    let mut w = world();
    let mut partly = Payload::from_int(0x0403_0201, 4);
    partly.undef = vec![0, 0xff, 0x0f, 0];
    store(&mut w, 0, Range::new(OBJ, 0, 4), partly, 0);
    // Bytes 1..3 forwarded from the buffer, byte 4 from memory (defined).
    let results = loads(&w, 0, Range::new(OBJ, 1, 4));
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].1.undef, vec![0xff, 0x0f, 0, 0]);
    // Flushed, the masks are in memory.
    let mut flushed = w.clone();
    let mut c = no_choice();
    flushed.0.fence(&mut flushed.1, &mut c, 0).expect("fence");
    let memory = flushed.1.object(OBJ).expect("object");
    assert_eq!(&memory.undef[..4], &[0, 0xff, 0x0f, 0]);
    // A defined store over byte 1 makes the load of bytes 1..2 defined there.
    store(&mut w, 0, Range::new(OBJ, 1, 1), Payload::from_int(9, 1), 0);
    let results = loads(&w, 0, Range::new(OBJ, 1, 2));
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].1.undef, vec![0, 0x0f]);
}
