//! The C11 memory model as a view machine, independent of the engine (memory through
//! [`SharedMemory`](crate::buffer::SharedMemory), choices through
//! [`Choice`](crate::buffer::Choice), as [`buffer`](crate::buffer) does for TSO).
//!
//! Sources: the promising semantics without promises (Kang, Hur, Lahav, Vafeiadis,
//! Dreyer, "A Promising Semantics for Relaxed-Memory Concurrency", POPL 2017) for
//! messages and views; RC11 (Lahav, Vafeiadis, Kang, Hur, Dreyer, "Repairing
//! Sequential Consistency in C/C++11", PLDI 2017) as the judge, including seq_cst.
//! `tests/c11_support/reference.rs` enumerates RC11-consistent executions and
//! `tests/c11_differential.rs` checks this machine against it on generated programs;
//! `tests/fixtures/c11_litmus.txt` is the litmus suite with its outcomes.
//!
//! # State
//! - A *location* is the byte range of an access. It holds *messages*, oldest first
//!   in modification order (`mo`); a message's timestamp is its index. Each message
//!   has its bytes, a *message view* (what acquiring it teaches) and an `rmw` mark
//!   (written by an RMW that read its predecessor: nothing may come between them).
//! - Each thread has views (location → oldest readable timestamp): `cur` (what it
//!   has seen), `acq` (`cur` plus the views of messages it read relaxed, taken at
//!   an acquire fence) and `rel` (`cur` at its last release fence). A view also
//!   carries happens-before knowledge for the SC order ([`HbKey`]); it travels
//!   wherever `cur` does, so exactly along `hb`.
//! - The *SC order*: a total order of the seq_cst events so far, as positions
//!   (renumbered densely after every step, so only their order is state). Messages
//!   and threads keep the positions the rules below need.
//!
//! # Rules
//! - **Relaxed load** of `x`: any message at or after `cur(x)`. `cur(x)` and
//!   `acq(x)` move to it; its message view joins `acq`.
//! - **Acquire load**: also joins the message view into `cur`.
//! - **Store** of `x`: the new message goes at any place after `cur(x)` in `mo`
//!   (not inside an RMW's pair), so a later store may be ordered before an earlier
//!   one another thread has not seen (2+2W needs this). Its message view is `cur`
//!   for a release store, else `rel`. Release sequences are C++20's: a release
//!   store heads one and only RMWs continue it (below), not the thread's later
//!   relaxed stores to `x` as in RC11's original definition (C++20 dropped that
//!   part, P0982R1; the race detector and GenMC follow C++20 too).
//! - **RMW**: reads any readable message whose successor is not already an RMW's and
//!   places its write right after it (atomicity); its message view also joins the
//!   read message's (release sequences through RMWs of any order). Not only the
//!   newest message: an RMW may read a stale value and take its place in `mo`
//!   before a newer store, as RC11 allows (a relaxed chain can force the RMW to run
//!   after the newer store). A failing compare-exchange is a load with its failure
//!   order.
//! - **Weak compare-exchange** (`atomic_compare_exchange_weak`, C++
//!   `compare_exchange_weak`, LLVM `cmpxchg weak`): where the comparison succeeds it
//!   may also fail spuriously, as LL/SC does on ARM and POWER: a failed
//!   compare-exchange of the same message, a load with the failure order (it reads
//!   the value it expected, and so writes that value back to `expected`). One more
//!   outcome of the same choice, as often as it comes (RC11 lets a failed weak
//!   compare-exchange read any value). A retry loop is no hang: the hang check
//!   (`tso-engine/src/explore/liveness.rs`) asks for a path to the program's end,
//!   and a spurious failure is offered only beside the success, which is that path
//!   (a loop that fails spuriously forever is the LL/SC livelock the hardware rules
//!   out); a loop whose compare-exchange can never succeed still hangs. A spurious
//!   failure changes nothing the loop reads, so the retry comes back to a state
//!   already seen, unless its body stores: the repeated store of the same value
//!   adds no message (next rule), so a Treiber push (`n->next = old` each time
//!   round) comes back too. A body that stores atomically, or another value each
//!   time, grows a history on every spurious failure until the history bound stops
//!   the run (inconclusive, never a pass).
//! - **Fences**: acquire sets `cur` to `acq`; release sets `rel` to `cur`; acq_rel
//!   both; seq_cst is acq_rel and takes a place in the SC order (below).
//!   `memory_order_consume` is passed as acquire; relaxed fences and
//!   `atomic_signal_fence` (one thread) do nothing here.
//!
//! # The SC order (`psc` of RC11)
//! RC11 asks `psc = psc_base ∪ psc_F` to be acyclic, where `scb = sb ∪ sb|≠loc ; hb ;
//! sb|≠loc ∪ hb|loc ∪ mo ∪ rb`, `psc_base = ([E^sc] ∪ [F^sc] ; hb?) ; scb ; ([E^sc] ∪
//! hb? ; [F^sc])` and `psc_F = [F^sc] ; (hb ∪ hb ; eco ; hb) ; [F^sc]`. The run order is
//! not the SC order: a relaxed `rf` orders the run but not `psc`. So each seq_cst
//! event (access or fence) takes *any* place in the SC order between its `psc`
//! sources and its `psc` targets among the events so far, as a store takes any place
//! in `mo`; a `psc` edge between two events already placed must agree with their
//! places, or the step is not allowed. Any linearisation of an RC11-consistent
//! execution's `psc` is reachable this way, and every execution reached has the
//! edges checked inside a total order, so no `psc` cycle (the edges left unchecked,
//! below, close no cycle the checked ones do not): the machine allows exactly
//! RC11's outcomes.
//! `Left(e)` is `e`'s place if seq_cst, joined with the newest SC fence `hb`-before
//! it (`[E^sc] ∪ [F^sc] ; hb?`): what is `psc`-before whatever `e` is `scb`-before.
//! - **Sources of an access at `x`** (its lower bound): the thread's last seq_cst
//!   event and SC fence `hb`-before (`sb`); `Hbl(x)`, the newest `Left` of accesses
//!   to `x` `hb`-before it (`hb|loc`); `Anch` as of its thread's last event at
//!   another location (`sb|≠loc ; hb ; sb|≠loc`: `Anch` is the newest seq_cst access
//!   followed in its thread by an event at another location that happens before);
//!   for a write, the `Left` of every writer and reader of a message `mo`-before it
//!   (`mo`, `rb`).
//! - **Targets of an access** (its upper bound): every message `mo`-after its write
//!   or the message it read (`mo`, `rb`): its writer's place if seq_cst, and the
//!   oldest SC fence its writer happens before (`hb? ; [F^sc]`). The SC fences
//!   `hb`-before the access (`[F^sc] ; hb`) must also come before those, and before
//!   the oldest SC fence a reader of them happens before (`psc_F` through `eco`):
//!   a relaxed access is refused when it would order them otherwise.
//! - **Sources of an SC fence**: for the newest write (`Hbv`) and read (`Hbr`) of
//!   each location that happens before it, the `Left` of writers and readers
//!   `mo`-before that write and the SC fences before writers and readers
//!   `eco`-before either; `Pre` (below). Its sources that happen before it (its
//!   thread's last seq_cst event, `Fen`, what is `scb`-before an event `hb`-before
//!   it) need no bound: a `psc` cycle through such an edge leaves the fence's
//!   `hb`-past by an `mo`, `rb` or `eco` edge into it, whose source is then a
//!   source above. An SC fence has no targets when it runs. It marks those newest
//!   write and read as happening before it (the targets above).
//! - Edges found late, into events already run (a store placed `mo`-before an
//!   older one, a read of a stale message), are caught by the targets above; those
//!   into a fence still to come, by its `Hbv`/`Hbr` sources (a prefix of `mo`).
//! - **Collection**: a message every thread's `cur` is past can be written before
//!   or read by no one again, so what an `Hbv`/`Hbr` entry naming it would give a
//!   fence is fixed: it is folded into `Pre` before the message goes.
//! - **Non-atomic accesses** read and store as relaxed ones do (any message at or
//!   after `cur(x)`; any place after it in `mo`, in the SC order's checks too), but
//!   transfer no view: their messages carry none and reading joins none into `acq`.
//!   Race-free, that is one choice: every write to `x` so far happens before the
//!   access (else they race), so `cur(x)` is the newest message (the visible side
//!   effect) and the only place left is the end of `mo`; the search grows by
//!   nothing. Racy, the program is undefined, but the checker must not pass what
//!   x86 fails: x86 runs a plain access as the same `mov` as a relaxed one, and
//!   RC11's relaxed outcomes contain x86-TSO's (the mapping of atomics to x86 is
//!   sound), so nothing TSO reaches is lost. Reading only `cur(x)` lost it twice: a
//!   plain load could not read another thread's write x86 had already made visible
//!   (`cargo-tso/tests/fixtures/check/c11_plain_unseen_write.c`), and after a
//!   seq_cst fence, once a seq_cst store was placed before the fence, `cur(x)` was
//!   inconsistent (`psc`: fence, load, `rb`, store) and the load had no outcome at
//!   all ([`C11Error::NoOutcome`]; `c11_plain_after_sc_fence.c`). Races are for the
//!   race detector, which follows the machine's histories through the
//!   [`HistoryEvent`] log each step leaves (`C11Memory::take_log`).
//!   A non-atomic store of the bytes of the location's newest message, by a thread
//!   whose `cur(x)` is that message, when the message teaches nothing but itself and
//!   has no place in the SC order, adds no message (an event at `x` all the same).
//!   Race-free, it is exact: every later write to `x` is `hb`-ordered with the store,
//!   so none can come between the two in `mo`, and a reader of either reads the same
//!   bytes and acquires nothing. Racy, a write placed between them is lost; the race
//!   is the race detector's (reported under the default `--races deny`), and x86
//!   loses nothing: a write between the two in memory order runs before the second
//!   store in some interleaving, and then the newest message is not the thread's.
//! - **Threads**: a new thread starts with its parent's `cur` (happens-before
//!   facts included); joining a thread joins its `cur`.
//!   A thread first named by an access starts with empty views.
//! - **Library synchronisation** (a mutex, a condition variable, a barrier): a
//!   release joins the thread's `cur` into the view kept at the primitive's key, an
//!   acquire joins that view into `cur` and `acq` (the happens-before race detection
//!   records). A released object's locations and keys are forgotten.
//!
//! # Scope and approximation
//! - **No load buffering**: a load reads only messages already written, so every
//!   execution has `sb ∪ rf` acyclic, as RC11 requires. LB's weak outcome is
//!   forbidden for every order (the suite checks it).
//! - **seq_cst is exact** against the RC11 enumerator on every generated program
//!   (`tests/c11_differential.rs`), with and without seq_cst.
//! - **Mixed sizes**: locations are whole accesses. An access that overlaps a
//!   location of another range is allowed only when every overlapped location's
//!   history is settled (one message: every thread has seen the newest). Those
//!   locations are retired to plain memory (the newest bytes are always written
//!   through) and the access starts a location from memory, whose message view
//!   joins the retired ones; what the SC order knew through a retired location is
//!   forgotten (fewer `psc` edges: more allowed, never fewer). Otherwise the access
//!   is refused with [`C11Error::MixedSize`]: unsupported, never guessed.
//! - **History bound** (`--history-bound N`): old messages no thread can read any
//!   more (older than every thread's `cur`) are dropped after every step. Beyond
//!   that, a location keeps at most `N` messages: older ones are dropped and
//!   [`C11Memory::bound_hit`] is set for good, so the run must end inconclusive.
//!
//! # Choices and canonical state
//! Each access computes every outcome (message read, place in `mo`, place in the
//! SC order for a seq_cst event or fence), drops
//! duplicates (same value read and same resulting state) and asks
//! [`Choice::choose`](crate::buffer::Choice::choose) once, only when two or more
//! remain. The state serialises canonically: timestamps are positions among live
//! messages, SC-order places are ranks among the places still named, views leave
//! out zeros, locations and threads are sorted;
//! [`C11Memory::serialize_mapped`] renames objects as the engine's canonical order
//! wants, as [`crate::buffer::StoreBuffers::serialize_mapped`] does, and
//! [`C11Memory::decode`] reads those bytes back (states rebuilt from the store).

mod model;
mod view;

pub use model::{C11Error, C11Memory, HistoryEvent, Order};
pub use view::{HbKey, LocKey, View};

#[cfg(test)]
mod tests;
