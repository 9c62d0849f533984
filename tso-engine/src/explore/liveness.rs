//! A test that can hang fails: after a search that found no error, every stored state
//! must have a path to the program's end, else the run is `non-terminating`.
//!
//! **The rule.** An *end* is a state where the program has finished (`main` returned,
//! `exit`, or no thread left running), a state where an observer's error ended the
//! path (`Observer::absorbs`: a dead end), a state with no move at all (a deadlock the
//! observers judged, or threads behind a stuck one), and a state with a move that an
//! `__VERIFIER_assume` pruned or that ran into an absorbed error (that path stops
//! there, so nothing is said about it). A stored state from which no end is reachable
//! is a hang: a spin on a flag no thread will set, a lost handoff, threads ping-ponging
//! forever, or a thread blocked on a join or lock behind such a cycle. A spin another
//! thread can release is a cycle with an exit, so its states reach the end. Loops
//! inside one transition are `interp/cycle.rs`'s; states where nothing moves are
//! `deadlock.rs`'s and keep their verdict (the search reports them first).
//!
//! **How.** The searches record every transition they store as an edge (source id,
//! target id) and the ends ([`Graph`]). Afterwards a backward pass from the ends over
//! the reversed edges marks the states that reach one; the rest are *candidates*. A
//! hang exists iff some bottom strongly connected component of the candidates is not
//! an end; the trace leads to the first state of such a component in search order and
//! goes once around a shortest cycle through it.
//!
//! **Exact under the reductions that are on by default.**
//! - *State caching and the breadth-first parallel search*: every stored state is
//!   expanded once (and again on a sleep-set revisit); each expansion records its
//!   edges, whichever worker runs it, so the recorded graph does not depend on order.
//! - *Thread symmetry*: states and edges are those of representatives. Being an end
//!   does not depend on thread names and a permuted state moves like the original,
//!   renamed, so a representative reaches an end iff every state it stands for does.
//!   With the join-array rule the states are normal forms (`store/symmetry.rs`,
//!   "Joining the array in another order", which argues the hang check over them); a
//!   move run again here from a stored state is stored as the search stores it, its
//!   successor's slots sorted first (`Machine::normalise_join_slots`), else the
//!   lookup misses a state the search did store.
//! - *Sleep sets* keep every state but skip transitions of sleeping threads, so the
//!   recorded graph R is a subgraph of the full one G (with the same states). A state
//!   that reaches an end in R does in G. A candidate may be a false one (its way out
//!   was a sleeper's move). The search keeps, per state, the threads asleep at every
//!   expansion of it (the sleep set it keeps, `sleep::revisit`: the intersection over
//!   its visits); every other thread was expanded at some visit, and an expansion
//!   records all of that thread's moves (an edge, or an end for a pruned or absorbed
//!   one). So R lacks exactly the moves of the threads in the kept sets. When sleep
//!   sets were on, each candidate not yet shown to reach an end whose kept set is not
//!   empty runs just those threads again (every choice, each successor looked up in
//!   the store: sleep sets lose no state), and one that reaches an end spreads that
//!   back over the edges. At the end every candidate left has all its moves in R. If
//!   one, c, reaches an end in G by a path, the path's first state not left is shown
//!   to reach an end, and every state before it is a candidate left, whose edges are
//!   all recorded; so c reaches an end in the recorded graph, a contradiction. The
//!   candidates left are exactly G's hangs. A successor missing from the store would
//!   break the premise: the check then stops inconclusive, never passes.
//! - *Persistent sets* (off by default, experimental) drop states as well, so a
//!   candidate's successor may never have been stored: the check is not run under
//!   them, and `--allow-nontermination` switches it off (such states are not errors).
//!
//! Cost: one (u32, u32) per stored transition during the search and a linear pass at
//! its end; under sleep sets, each candidate with a kept sleep set is rebuilt and its
//! sleepers run again (figures in `bench/PERFORMANCE.md`, "Hangs").

use super::chooser::{next_script, Script, ScriptChooser};
use super::held::Keeper;
use super::observers::{absorbed, Found, Observer};
use super::parents::{Parents, StateId};
use super::search::Stop;
use super::sleep::{self, Sleep};
use super::Move;
use crate::error::{ErrorKind, Failure};
use crate::interp::{Machine, Step};
use crate::state::{State, ThreadId};
use crate::store::symmetry::Keys;
use crate::store::{Canonicalizer, Scratch, StateStore};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// The transitions a search stored and its ends.
#[derive(Default)]
pub struct Graph {
    edges: Vec<(StateId, StateId)>,
    ends: Vec<StateId>,
    /// The breadth-first search's states in level order (empty for the depth-first
    /// search): which hang is shown does not depend on the number of workers.
    order: Vec<StateId>,
}

impl Graph {
    #[inline]
    pub fn edge(&mut self, from: StateId, to: StateId) {
        self.edges.push((from, to));
    }

    #[inline]
    pub fn end(&mut self, id: StateId) {
        self.ends.push(id);
    }

    pub fn visit(&mut self, id: StateId) {
        self.order.push(id);
    }

    pub fn append(&mut self, other: &mut Graph) {
        self.edges.append(&mut other.edges);
        self.ends.append(&mut other.ends);
        self.order.append(&mut other.order);
    }
}

/// Whether a search records its graph for this check (see the module documentation).
pub fn applies(machine: &Machine<'_>) -> bool {
    machine.opts.hangs
        && !machine.opts.allow_nontermination
        && machine.opts.hangs_unchecked().is_none()
}

/// What the check concluded.
enum Liveness {
    /// Every state reaches the end.
    Ends,
    /// A hang, and the path into it and once around its cycle.
    Hang { found: Found, path: Vec<Move> },
    /// The check could not decide (a state that cannot be rebuilt, or a successor the
    /// store lacks).
    Unknown(String),
}

/// Where a search's states are and how to run them again.
pub struct Context<'a, 'p> {
    pub machine: &'a Machine<'p>,
    pub store: &'a StateStore,
    pub keeper: &'a Keeper,
    pub include_output: bool,
    pub root: StateId,
    /// Sleep sets were on: the sleep set each stored state kept (absent: empty), whose
    /// threads a candidate runs again.
    pub asleep: Option<&'a HashMap<StateId, Sleep>>,
    /// The breadth-first search's parent tree (paths to states).
    pub parents: Option<&'a Parents>,
}

/// One successor of a state run again.
enum Succ {
    Stored(StateId),
    /// The move ends its path (pruned, or an error).
    End,
}

struct Runner<'a, 'p> {
    cx: Context<'a, 'p>,
    canon: Canonicalizer,
    scratch: Scratch,
    chooser: ScriptChooser,
    empty: Arc<Vec<u8>>,
    /// Scratch of `Machine::normalise_join_slots`.
    join_keys: Keys,
}

impl Runner<'_, '_> {
    fn rebuild(&mut self, id: StateId) -> Result<State, String> {
        self.cx
            .keeper
            .rebuild_id(
                self.cx.machine,
                self.cx.store,
                &self.canon,
                &mut self.scratch,
                id,
                &self.empty,
            )
            .map_err(|f| f.message)
    }

    /// Every move from `st` (every running thread, every choice) and where it leads.
    fn successors(&mut self, st: &State) -> Result<Vec<(Move, Succ)>, String> {
        self.moves_of(st, |_| true)
    }

    /// The moves from `st` of the running threads `which` selects, and where they lead.
    fn moves_of(
        &mut self,
        st: &State,
        which: impl Fn(ThreadId) -> bool,
    ) -> Result<Vec<(Move, Succ)>, String> {
        let mut out = Vec::new();
        for tid in 0..st.threads.len() as ThreadId {
            if !which(tid) || !st.thread(tid).status.is_running() {
                continue;
            }
            let mut script = Script::new();
            loop {
                let mut next = st.clone();
                self.chooser.reset(&script);
                let result =
                    self.cx
                        .machine
                        .run_transition(&mut next, tid, &mut self.chooser, None);
                // A race seen from a rebuilt state is the search's to report, not this
                // re-run's.
                let _ = crate::interp::take_unreported_race();
                let mv = self.chooser.made(tid);
                let advanced = next_script(self.chooser.taken());
                match result {
                    Ok(Step::Blocked | Step::Await) => {}
                    Ok(Step::Progress) if next.exit_code.is_none_or(|c| c == 0) => {
                        // Stored as the search stores a successor: with the slots of
                        // `main`'s array of joined handles sorted, when it sorts them.
                        self.cx
                            .machine
                            .normalise_join_slots(&mut next, &mut self.join_keys);
                        let ins = self.cx.store.insert_state(
                            &mut self.canon,
                            &mut self.scratch,
                            self.cx.machine.program,
                            &next,
                            self.cx.include_output,
                        );
                        if ins.new {
                            return Err(format!(
                                "a successor of stored state {} was not in the store",
                                ins.id
                            ));
                        }
                        out.push((mv, Succ::Stored(ins.id)));
                    }
                    Ok(_) | Err(_) => out.push((mv, Succ::End)),
                }
                match advanced {
                    Some(s) => script = s,
                    None => break,
                }
            }
        }
        Ok(out)
    }

    /// The move from stored state `from` to stored state `to`, and `to` rebuilt.
    fn step(&mut self, from: StateId, to: StateId) -> Result<Move, String> {
        let st = self.rebuild(from)?;
        self.successors(&st)?
            .into_iter()
            .find_map(|(mv, s)| matches!(s, Succ::Stored(id) if id == to).then_some(mv))
            .ok_or_else(|| format!("no move leads from state {from} to state {to}"))
    }
}

/// Compressed adjacency: `start[v]..start[v + 1]` indexes `to`.
struct Adjacency {
    start: Vec<u32>,
    to: Vec<StateId>,
}

impl Adjacency {
    fn new(n: usize, edges: impl Iterator<Item = (StateId, StateId)> + Clone) -> Adjacency {
        let mut start = vec![0u32; n + 1];
        for (a, _) in edges.clone() {
            start[a as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut to = vec![0; start[n] as usize];
        for (a, b) in edges {
            to[fill[a as usize] as usize] = b;
            fill[a as usize] += 1;
        }
        Adjacency { start, to }
    }

    fn of(&self, v: StateId) -> &[StateId] {
        &self.to[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }
}

/// Mark as reaching an end every state that reaches one of `from` backwards over
/// `back` and the edges `extra` added (by target).
fn spread(
    good: &mut [bool],
    back: &Adjacency,
    extra: &HashMap<StateId, Vec<StateId>>,
    mut stack: Vec<StateId>,
) {
    while let Some(v) = stack.pop() {
        let added = extra.get(&v).map_or(&[][..], Vec::as_slice);
        for &u in back.of(v).iter().chain(added) {
            if !good[u as usize] {
                good[u as usize] = true;
                stack.push(u);
            }
        }
    }
}

/// The check on the graph a passing search recorded, as the search's stop: a hang
/// (unless an observer absorbs it), or inconclusive when it could not decide.
pub fn stop(cx: Context<'_, '_>, graph: Graph, observers: &[&dyn Observer]) -> Option<Stop> {
    match check(cx, graph) {
        Liveness::Ends => None,
        Liveness::Hang { found, path } => {
            (!absorbed(observers, &found)).then_some(Stop::Found { found, path })
        }
        Liveness::Unknown(why) => Some(Stop::Limit {
            reason: format!("the check that every state can reach the end stopped: {why}"),
            path: Vec::new(),
        }),
    }
}

/// Run the check on the graph a passing search recorded.
fn check(cx: Context<'_, '_>, mut graph: Graph) -> Liveness {
    let ids = graph
        .edges
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .chain(graph.ends.iter().copied())
        .chain([cx.root]);
    let n = ids.max().map_or(0, |m| m as usize + 1);
    let mut present = vec![false; n];
    present[cx.root as usize] = true;
    for &(a, b) in &graph.edges {
        present[a as usize] = true;
        present[b as usize] = true;
    }
    let back = Adjacency::new(n, graph.edges.iter().map(|&(a, b)| (b, a)));
    let mut extra: HashMap<StateId, Vec<StateId>> = HashMap::new();
    let mut good = vec![false; n];
    let mut ends = Vec::new();
    for &e in &graph.ends {
        if !good[e as usize] {
            good[e as usize] = true;
            ends.push(e);
        }
    }
    spread(&mut good, &back, &extra, ends);
    let mut runner = Runner {
        canon: Canonicalizer::for_search(&cx.machine.opts),
        scratch: Scratch::default(),
        chooser: ScriptChooser::default(),
        empty: Arc::new(Vec::new()),
        join_keys: Keys::default(),
        cx,
    };
    let candidates: Vec<StateId> = (0..n as StateId)
        .filter(|&v| present[v as usize] && !good[v as usize])
        .collect();
    if candidates.is_empty() {
        return Liveness::Ends;
    }
    if let Some(asleep) = runner.cx.asleep {
        // Sleep sets skipped the moves of the threads a state kept asleep: record
        // them, for each candidate not shown to reach an end meanwhile (the last found
        // first: they tend to lie nearer the end, and each one that reaches it spreads
        // back).
        for &c in candidates.iter().rev() {
            let kept = asleep.get(&c).copied().unwrap_or(0);
            if good[c as usize] || kept == 0 {
                continue;
            }
            let succs = match runner
                .rebuild(c)
                .and_then(|st| runner.moves_of(&st, |t| sleep::contains(kept, t)))
            {
                Ok(succs) => succs,
                Err(why) => return Liveness::Unknown(why),
            };
            let mut reaches = false;
            for (_, s) in succs {
                match s {
                    Succ::Stored(id) => {
                        graph.edge(c, id);
                        extra.entry(id).or_default().push(c);
                        reaches |= good[id as usize];
                    }
                    Succ::End => {
                        graph.end(c);
                        reaches = true;
                    }
                }
            }
            if reaches {
                good[c as usize] = true;
                spread(&mut good, &back, &extra, vec![c]);
            }
        }
        if candidates.iter().all(|&c| good[c as usize]) {
            return Liveness::Ends;
        }
    }
    match hang(&mut runner, &graph, &good, n) {
        Ok(l) => l,
        Err(why) => Liveness::Unknown(why),
    }
}

/// The hang to show: the first state of a bottom component of the states that reach
/// no end, in search order, the path to it and once around its shortest cycle.
fn hang(
    runner: &mut Runner<'_, '_>,
    graph: &Graph,
    good: &[bool],
    n: usize,
) -> Result<Liveness, String> {
    let bad_edges = || {
        graph
            .edges
            .iter()
            .copied()
            .filter(|&(a, b)| !good[a as usize] && !good[b as usize])
    };
    let forward = Adjacency::new(n, bad_edges());
    let bottom = bottom_components(n, &forward, |v| !good[v as usize]);
    let is_bottom = |v: StateId| bottom[v as usize] != u32::MAX;
    // The path to it: the breadth-first search's parent tree, or a shortest path over
    // the recorded edges.
    let (h, mut path) = match runner.cx.parents {
        Some(parents) if !graph.order.is_empty() => {
            let h = graph
                .order
                .iter()
                .copied()
                .chain([runner.cx.root])
                .find(|&v| (v as usize) < n && is_bottom(v))
                .ok_or("no hang state in the search's order")?;
            (h, parents.path_to(h))
        }
        _ => {
            let all = Adjacency::new(n, graph.edges.iter().copied());
            let mut pred: HashMap<StateId, StateId> = HashMap::new();
            let mut queue = VecDeque::from([runner.cx.root]);
            let mut seen = vec![false; n];
            seen[runner.cx.root as usize] = true;
            let mut h = None;
            while let Some(v) = queue.pop_front() {
                if is_bottom(v) {
                    h = Some(v);
                    break;
                }
                for &w in all.of(v) {
                    if !seen[w as usize] {
                        seen[w as usize] = true;
                        pred.insert(w, v);
                        queue.push_back(w);
                    }
                }
            }
            let h = h.ok_or("no hang state reachable over the recorded edges")?;
            let mut ids = vec![h];
            while let Some(&p) = pred.get(ids.last().expect("not empty")) {
                ids.push(p);
            }
            ids.reverse();
            let mut path = Vec::new();
            for w in ids.windows(2) {
                path.push(runner.step(w[0], w[1])?);
            }
            (h, path)
        }
    };
    // Once around: a shortest cycle through `h` inside its component, moves in order;
    // not a thread's spin on its own when the component has more states (ping-pong
    // shows both threads).
    let component = bottom[h as usize];
    let alone = bottom.iter().filter(|&&c| c == component).count() == 1;
    let mut via: HashMap<StateId, (StateId, Move)> = HashMap::new();
    let mut queue = VecDeque::from([h]);
    let mut closing = None;
    'search: while let Some(v) = queue.pop_front() {
        let st = runner.rebuild(v)?;
        for (mv, s) in runner.successors(&st)? {
            let Succ::Stored(w) = s else { continue };
            if w == h && (v != h || alone) {
                closing = Some((v, mv));
                break 'search;
            }
            if (w as usize) < n && bottom[w as usize] == component && !via.contains_key(&w) {
                via.insert(w, (v, mv));
                queue.push_back(w);
            }
        }
    }
    let (mut at, last) = closing.ok_or("the hang's component has no cycle")?;
    let mut turn = vec![last];
    while at != h {
        let (p, mv) = via.remove(&at).ok_or("broken cycle")?;
        turn.push(mv);
        at = p;
    }
    turn.reverse();
    let st = runner.rebuild(h)?;
    let failure = describe(runner.cx.machine, &st, &turn);
    let thread = turn.first().map(|m| m.tid);
    path.extend(turn);
    Ok(Liveness::Hang {
        found: Found::new(failure, thread),
        path,
    })
}

/// The failure for a hang at `st` whose cycle is `turn`: the loop and where each
/// thread waits.
fn describe(machine: &Machine<'_>, st: &State, turn: &[Move]) -> Failure {
    let at = |tid: ThreadId| {
        machine
            .program
            .location(machine.location(st, tid))
            .map(|l| {
                let file = l.file.rsplit('/').next().unwrap_or(&l.file);
                format!("{file}:{}", l.line)
            })
            .unwrap_or_else(|| "an unknown location".to_owned())
    };
    let mut movers: Vec<ThreadId> = turn.iter().map(|m| m.tid).collect();
    movers.sort_unstable();
    movers.dedup();
    let looping = movers
        .iter()
        .map(|&t| format!("thread {t} at {}", at(t)))
        .collect::<Vec<_>>()
        .join(", ");
    let waiting = (0..st.threads.len() as ThreadId)
        .filter(|t| st.thread(*t).status.is_running() && !movers.contains(t))
        .map(|t| format!("thread {t} at {}", at(t)))
        .collect::<Vec<_>>();
    let mut message = format!(
        "the program can never end from here: the trace's last {} (by {looping}) repeat{} forever, and no path leads from {} to the program's end",
        if turn.len() == 1 { "step".to_owned() } else { format!("{} steps", turn.len()) },
        if turn.len() == 1 { "s" } else { "" },
        if turn.len() == 1 { "it" } else { "them" },
    );
    if !waiting.is_empty() {
        message.push_str(&format!("; waiting: {}", waiting.join(", ")));
    }
    Failure::new(ErrorKind::NonTerminating, message)
}

/// Tarjan's algorithm (iterative) over the states `inside` selects: for each state of a
/// bottom component (no edge to another component), the component's number; `u32::MAX`
/// for the rest.
fn bottom_components(n: usize, adj: &Adjacency, inside: impl Fn(StateId) -> bool) -> Vec<u32> {
    const NONE: u32 = u32::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut bottom = vec![NONE; n];
    let mut stack: Vec<StateId> = Vec::new();
    let mut next_index = 0u32;
    let mut components = 0u32;
    // (state, position in its adjacency)
    let mut calls: Vec<(StateId, usize)> = Vec::new();
    for s in 0..n as StateId {
        if !inside(s) || index[s as usize] != NONE {
            continue;
        }
        calls.push((s, 0));
        index[s as usize] = next_index;
        low[s as usize] = next_index;
        next_index += 1;
        stack.push(s);
        on_stack[s as usize] = true;
        while let Some(&mut (v, ref mut pos)) = calls.last_mut() {
            let succ = adj.of(v);
            if *pos < succ.len() {
                let w = succ[*pos];
                *pos += 1;
                if index[w as usize] == NONE {
                    index[w as usize] = next_index;
                    low[w as usize] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    calls.push((w, 0));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(p, _)) = calls.last() {
                low[p as usize] = low[p as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                let c = components;
                components += 1;
                let mut members = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    comp[w as usize] = c;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                // Components finish after every component they reach: one is bottom
                // when no member has an edge leaving it.
                let leaves = members
                    .iter()
                    .any(|&m| adj.of(m).iter().any(|&w| comp[w as usize] != c));
                if !leaves {
                    for m in members {
                        bottom[m as usize] = c;
                    }
                }
            }
        }
    }
    bottom
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adjacency(n: usize, edges: &[(StateId, StateId)]) -> Adjacency {
        Adjacency::new(n, edges.iter().copied())
    }

    #[test]
    fn only_components_with_no_way_out_are_bottom() {
        // 0 → 1 ⇄ 2 → 3 ⇄ 4, and 5 ↺ alone: {3, 4} and {5} are bottom; {1, 2} leaves.
        let edges = [(0, 1), (1, 2), (2, 1), (2, 3), (3, 4), (4, 3), (5, 5)];
        let bottom = bottom_components(6, &adjacency(6, &edges), |_| true);
        assert_eq!(bottom[0], u32::MAX);
        assert_eq!(bottom[1], u32::MAX);
        assert_eq!(bottom[2], u32::MAX);
        assert_ne!(bottom[3], u32::MAX);
        assert_eq!(bottom[3], bottom[4]);
        assert_ne!(bottom[5], u32::MAX);
        assert_ne!(bottom[5], bottom[3]);
    }

    #[test]
    fn reaching_an_end_spreads_back_over_recorded_and_added_edges() {
        // 0 → 1 → 2 (an end); 3 ⇄ 4; 5 → 3. An edge 4 → 2 added later frees 3, 4, 5.
        let edges = [(0, 1), (1, 2), (3, 4), (4, 3), (5, 3)];
        let back = Adjacency::new(6, edges.iter().map(|&(a, b)| (b, a)));
        let mut good = vec![false; 6];
        good[2] = true;
        let mut extra: HashMap<StateId, Vec<StateId>> = HashMap::new();
        spread(&mut good, &back, &extra, vec![2]);
        assert_eq!(good, [true, true, true, false, false, false]);
        extra.entry(2).or_default().push(4);
        good[4] = true;
        spread(&mut good, &back, &extra, vec![4]);
        assert!(good.iter().all(|&g| g));
    }
}
