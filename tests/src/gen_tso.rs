//! Random small C programs for differential testing of the TSO encodings (see
//! ARCHITECTURE.md, "Testing strategy"): 2–4 threads of 1–5 loads, stores, mfences,
//! xchgs and CASes on 2–3 8-byte locations, accessed with mixed 1-, 2-, 4- and 8-byte
//! widths at naturally aligned offsets, so accesses overlap partially. In two-thread
//! programs some loads and stores go through the C library (`memcpy`, `memset`): they
//! hold no fence on x86, so they buffer and forward like plain ones. An 8-byte CAS with
//! an odd new byte is widened to 16 bytes over the first two locations
//! (`lock cmpxchg16b`, a `__sync_val_compare_and_swap` on `unsigned __int128`); its
//! old value prints as two halves. `main` prints every loaded value and the
//! final memory.

use crate::prng::Rng;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::fmt::Write;

/// A naturally aligned byte range inside location `loc`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub loc: usize,
    pub offset: u32,
    pub width: u32,
}

impl Range {
    fn random(rng: &mut Rng, locations: usize) -> Range {
        let width = *rng.pick(&[1u32, 2, 4, 8]);
        let offset = rng.below(u64::from(8 / width)) as u32 * width;
        Range {
            loc: rng.below(locations as u64) as usize,
            offset,
            width,
        }
    }

    /// The 16-byte range over the first two locations (`cmpxchg16b`).
    fn pair() -> Range {
        Range {
            loc: 0,
            offset: 0,
            width: 16,
        }
    }

    fn c_type(self) -> &'static str {
        match self.width {
            1 => "uint8_t",
            2 => "uint16_t",
            4 => "uint32_t",
            _ => "uint64_t",
        }
    }

    /// An lvalue for the range, through a volatile pointer of the access width.
    fn lvalue(self) -> String {
        format!(
            "*(volatile {} *)((volatile char *)&loc[{}] + {})",
            self.c_type(),
            self.loc,
            self.offset
        )
    }

    fn pointer(self) -> String {
        format!(
            "(volatile {} *)((volatile char *)&loc[{}] + {})",
            self.c_type(),
            self.loc,
            self.offset
        )
    }
}

/// `byte` repeated over `width` bytes, as a C constant.
fn pattern(byte: u8, width: u32) -> String {
    if width == 16 {
        let half = pattern(byte, 8);
        return format!("((unsigned __int128){half} << 64 | {half})");
    }
    let v = (0..width).fold(0u64, |acc, _| (acc << 8) | u64::from(byte));
    format!("0x{v:x}ull")
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Load(Range),
    /// Stores `byte` repeated over the range.
    Store(Range, u8),
    Mfence,
    /// `__atomic_store_n(.., __ATOMIC_SEQ_CST)` of `byte` repeated: the checker runs it
    /// as x86's `xchg`, one locked store; the machine below as `mov; mfence`, the other
    /// code x86 compilers emit for it.
    SeqCstStore(Range, u8),
    /// `__atomic_exchange_n`, storing `byte` repeated, keeping the old value.
    Xchg(Range, u8),
    /// `__sync_val_compare_and_swap`: expected and desired bytes (repeated), keeping
    /// the old value; at width 16, `lock cmpxchg16b` on [`Range::pair`].
    Cas(Range, u8, u8),
    /// A load by `memcpy` into a local: one load of the range, as x86 executes it.
    LibraryLoad(Range),
    /// A store by `memset` of `byte` over the range: one store, as a plain one.
    LibraryStore(Range, u8),
}

impl Op {
    /// The 16-byte compare-exchange, whose old value has two halves.
    fn is_wide(&self) -> bool {
        matches!(self, Op::Cas(r, ..) if r.width == 16)
    }

    fn loads(&self) -> bool {
        matches!(
            self,
            Op::Load(_) | Op::LibraryLoad(_) | Op::Xchg(..) | Op::Cas(..)
        )
    }
}

#[derive(Clone, Debug)]
pub struct TsoProgram {
    pub seed: u64,
    pub locations: usize,
    pub threads: Vec<Vec<Op>>,
}

/// The program of `seed`. Thread counts and lengths trade off so that the reference
/// machine's state space stays small enough for CI: 2 threads get up to 5 operations,
/// 3 threads up to 3, 4 threads up to 2.
pub fn generate(seed: u64) -> TsoProgram {
    let mut rng = Rng::new(seed ^ 0x7450_0000);
    let locations = rng.range(2, 3) as usize;
    let nthreads = *rng.pick(&[2usize, 2, 2, 3, 3, 4]);
    let max_ops = match nthreads {
        2 => 5,
        3 => 3,
        _ => 2,
    };
    // Library calls only with two threads: a library call's buffered stores to the
    // caller's own memory multiply the reference machine's states (a 4-thread
    // program took 90 s where the delayed flush took none).
    let library = nthreads == 2;
    let mut threads = Vec::new();
    for t in 0..nthreads {
        let mut ops = Vec::new();
        for i in 0..rng.range(1, max_ops) {
            // A byte unique to (thread, op) makes every store recognisable in outcomes.
            let mine = (((t + 1) << 4) | (i as usize + 1)) as u8;
            let range = Range::random(&mut rng, locations);
            let op = match rng.below(10) {
                0..=2 => Op::Load(range),
                3 if library => Op::LibraryLoad(range),
                3 => Op::Load(range),
                // The parity of the op's index picks a seq_cst store without a draw of
                // its own, so the other ops of a seed stay what they were.
                5 if mine & 2 == 0 => Op::SeqCstStore(range, mine),
                4..=5 => Op::Store(range, mine),
                6 if library => Op::LibraryStore(range, mine),
                6 => Op::Store(range, mine),
                7 => Op::Mfence,
                8 => Op::Xchg(range, mine),
                _ => {
                    // Expect 0 or a byte some other thread's first ops store, so the CAS
                    // can both fail and succeed.
                    let other = rng.below(nthreads as u64) as usize;
                    let expected = if rng.below(2) == 0 {
                        0
                    } else {
                        (((other + 1) << 4) | (rng.range(1, 2) as usize)) as u8
                    };
                    let wide = range.width == 8 && mine & 1 == 1;
                    Op::Cas(if wide { Range::pair() } else { range }, expected, mine)
                }
            };
            ops.push(op);
        }
        threads.push(ops);
    }
    TsoProgram {
        seed,
        locations,
        threads,
    }
}

impl TsoProgram {
    /// The C source. Loaded values go to locals (never buffered: their address does
    /// not escape) and, once the thread's operations are done, into a heap block the
    /// thread returns, so the result bookkeeping adds no stores between the operations
    /// under test. `main` prints them after joining, followed by the final memory.
    pub fn to_c(&self) -> String {
        let mut s = format!(
            "// Generated by tests/src/gen_tso.rs from seed {}.\n#include <pthread.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n",
            self.seed
        );
        // 16-byte aligned for the 16-byte compare-exchange (x86 faults otherwise).
        let _ = writeln!(s, "_Alignas(16) volatile uint64_t loc[{}];", self.locations);
        // Called through volatile pointers, so every optimisation level makes the call
        // (a direct `memcpy` of 8 bytes becomes a plain load at -O2).
        s.push_str("void *(*volatile copy_fn)(void *, const void *, size_t) = memcpy;\nvoid *(*volatile set_fn)(void *, int, size_t) = memset;\n");
        let mut fmt: Vec<String> = Vec::new();
        let mut args: Vec<String> = Vec::new();
        for (t, ops) in self.threads.iter().enumerate() {
            let _ = writeln!(s, "\nstatic void *thread{t}(void *arg) {{\n    (void)arg;");
            let mut results = Vec::new();
            for (i, op) in ops.iter().enumerate() {
                let line = match *op {
                    Op::Load(r) => format!("uint64_t r{i} = {};", r.lvalue()),
                    // Into a temporary of the access width that the copy fills
                    // entirely: no initialising store joins the buffer before it.
                    Op::LibraryLoad(r) => format!(
                        "{ty} t{i}; copy_fn(&t{i}, (const void *){}, sizeof t{i}); uint64_t r{i} = t{i};",
                        r.pointer(),
                        ty = r.c_type()
                    ),
                    // Every other store ends its block with a branch to the next
                    // statement, which the pass looks past for a fence.
                    Op::Store(r, b) if i % 2 == 1 => format!(
                        "{} = {}; goto next{i}; next{i}:;",
                        r.lvalue(),
                        pattern(b, r.width)
                    ),
                    Op::Store(r, b) => format!("{} = {};", r.lvalue(), pattern(b, r.width)),
                    Op::LibraryStore(r, b) => {
                        format!("set_fn((void *){}, 0x{b:x}, {});", r.pointer(), r.width)
                    }
                    Op::Mfence => "__asm__ volatile(\"mfence\" ::: \"memory\");".to_string(),
                    Op::SeqCstStore(r, b) => format!(
                        "__atomic_store_n({}, {}, __ATOMIC_SEQ_CST);",
                        r.pointer(),
                        pattern(b, r.width)
                    ),
                    Op::Xchg(r, b) => format!(
                        "uint64_t r{i} = __atomic_exchange_n({}, {}, __ATOMIC_SEQ_CST);",
                        r.pointer(),
                        pattern(b, r.width)
                    ),
                    Op::Cas(r, e, d) if r.width == 16 => format!(
                        "unsigned __int128 w{i} = __sync_val_compare_and_swap((volatile unsigned __int128 *)&loc[0], {}, {}); uint64_t r{i} = (uint64_t)w{i}; uint64_t h{i} = (uint64_t)(w{i} >> 64);",
                        pattern(e, 16),
                        pattern(d, 16)
                    ),
                    Op::Cas(r, e, d) => {
                        format!(
                            "uint64_t r{i} = __sync_val_compare_and_swap({}, {}, {});",
                            r.pointer(),
                            pattern(e, r.width),
                            pattern(d, r.width)
                        )
                    }
                };
                let _ = writeln!(s, "    {line}");
                if op.loads() {
                    fmt.push(format!("r{t}_{i}=%llx"));
                    args.push(format!("(unsigned long long)out[{t}][{}]", results.len()));
                    results.push(format!("r{i}"));
                }
                if op.is_wide() {
                    fmt.push(format!("r{t}_{i}h=%llx"));
                    args.push(format!("(unsigned long long)out[{t}][{}]", results.len()));
                    results.push(format!("h{i}"));
                }
            }
            let _ = writeln!(
                s,
                "    uint64_t *out = malloc(sizeof(uint64_t) * {});",
                results.len().max(1)
            );
            for (k, var) in results.iter().enumerate() {
                let _ = writeln!(s, "    out[{k}] = {var};");
            }
            s.push_str("    return out;\n}\n");
        }
        let n = self.threads.len();
        crate::gen_sc::start_and_join(
            &mut s,
            n,
            &format!("    uint64_t *out[{n}];\n"),
            "(void **)&out[i]",
        );
        for l in 0..self.locations {
            fmt.push(format!("loc[{l}]=%llx"));
            args.push(format!("(unsigned long long)loc[{l}]"));
        }
        let _ = writeln!(
            s,
            "    printf(\"{}\\n\", {});",
            fmt.join(" "),
            args.join(", ")
        );
        let _ = writeln!(
            s,
            "    for (int i = 0; i < {n}; i++)\n        free(out[i]);\n    return 0;\n}}"
        );
        s
    }
}

/// An operational x86-TSO machine over the generated operations, written here
/// independently of the engine: FIFO store buffers of byte ranges, loads forward the
/// newest own bytes, the oldest entry of any buffer may flush at any step, mfence and
/// locked instructions wait for an empty own buffer, thread end drains; a seq_cst store
/// is a store and an mfence (two steps, with the store buffered between them). `bound` is the
/// most entries a buffer may hold (a store into a full buffer first flushes its
/// oldest); `None` is unbounded; `Some(0)` writes every store straight to memory,
/// which is SC.
pub fn machine_outcomes(program: &TsoProgram, bound: Option<usize>) -> BTreeSet<String> {
    #[derive(Clone, PartialEq, Eq, Hash)]
    struct St {
        pcs: Vec<usize>,
        mem: Vec<u8>,
        buffers: Vec<VecDeque<(usize, Vec<u8>)>>,
        regs: Vec<Vec<u128>>,
    }
    let n = program.threads.len();
    // Each thread's steps, with the index of the operation each belongs to.
    let steps: Vec<Vec<(usize, Op)>> = program
        .threads
        .iter()
        .map(|ops| {
            ops.iter()
                .enumerate()
                .flat_map(|(i, op)| match *op {
                    Op::SeqCstStore(r, b) => vec![(i, Op::Store(r, b)), (i, Op::Mfence)],
                    _ => vec![(i, op.clone())],
                })
                .collect()
        })
        .collect();
    let start = St {
        pcs: vec![0; n],
        mem: vec![0; program.locations * 8],
        buffers: vec![VecDeque::new(); n],
        regs: program
            .threads
            .iter()
            .map(|ops| vec![0; ops.len()])
            .collect(),
    };
    let addr = |r: Range| r.loc * 8 + r.offset as usize;
    let read = |mem: &[u8], r: Range| {
        (0..r.width as usize)
            .rev()
            .fold(0u128, |acc, i| (acc << 8) | u128::from(mem[addr(r) + i]))
    };
    let bytes = |b: u8, r: Range| vec![b; r.width as usize];
    let mut seen = HashSet::new();
    let mut stack = vec![start];
    let mut out = BTreeSet::new();
    while let Some(st) = stack.pop() {
        if !seen.insert(st.clone()) {
            continue;
        }
        let mut moved = false;
        for (t, steps) in steps.iter().enumerate() {
            // Flush the oldest entry of thread t's buffer.
            if let Some((a, data)) = st.buffers[t].front() {
                let mut next = st.clone();
                next.mem[*a..*a + data.len()].copy_from_slice(data);
                next.buffers[t].pop_front();
                stack.push(next);
                moved = true;
            }
            let Some((i, op)) = steps.get(st.pcs[t]) else {
                continue;
            };
            let i = *i;
            let empty = st.buffers[t].is_empty();
            let mut next = st.clone();
            next.pcs[t] += 1;
            match *op {
                Op::Load(r) | Op::LibraryLoad(r) => {
                    let mut view: Vec<u8> = next.mem[addr(r)..addr(r) + r.width as usize].to_vec();
                    for (a, data) in &next.buffers[t] {
                        for (k, byte) in data.iter().enumerate() {
                            if let Some(slot) =
                                (a + k).checked_sub(addr(r)).filter(|&o| o < view.len())
                            {
                                view[slot] = *byte;
                            }
                        }
                    }
                    let mut tmp = next.mem.clone();
                    tmp[addr(r)..addr(r) + view.len()].copy_from_slice(&view);
                    next.regs[t][i] = read(&tmp, r);
                }
                Op::Store(r, b) | Op::LibraryStore(r, b) if bound == Some(0) => {
                    next.mem[addr(r)..addr(r) + r.width as usize].copy_from_slice(&bytes(b, r));
                }
                // Full buffer: the store waits; the flush move above makes room.
                Op::Store(..) | Op::LibraryStore(..)
                    if bound.is_some_and(|k| next.buffers[t].len() >= k) =>
                {
                    continue
                }
                Op::Store(r, b) | Op::LibraryStore(r, b) => {
                    next.buffers[t].push_back((addr(r), bytes(b, r)))
                }
                Op::Mfence if !empty => continue,
                Op::Mfence => {}
                Op::SeqCstStore(..) => unreachable!("split into a store and an mfence above"),
                Op::Xchg(..) | Op::Cas(..) if !empty => continue,
                Op::Xchg(r, b) => {
                    next.regs[t][i] = read(&next.mem, r);
                    next.mem[addr(r)..addr(r) + r.width as usize].copy_from_slice(&bytes(b, r));
                }
                Op::Cas(r, e, d) => {
                    let old = read(&next.mem, r);
                    next.regs[t][i] = old;
                    if bytes(e, r)
                        .iter()
                        .enumerate()
                        .all(|(k, byte)| next.mem[addr(r) + k] == *byte)
                    {
                        next.mem[addr(r)..addr(r) + r.width as usize].copy_from_slice(&bytes(d, r));
                    }
                }
            }
            stack.push(next);
            moved = true;
        }
        if !moved {
            let mut fields = Vec::new();
            for (t, ops) in program.threads.iter().enumerate() {
                for (i, op) in ops.iter().enumerate() {
                    if op.loads() {
                        fields.push(format!("r{t}_{i}={:x}", st.regs[t][i] as u64));
                    }
                    if op.is_wide() {
                        fields.push(format!("r{t}_{i}h={:x}", (st.regs[t][i] >> 64) as u64));
                    }
                }
            }
            for l in 0..program.locations {
                let whole = Range {
                    loc: l,
                    offset: 0,
                    width: 8,
                };
                fields.push(format!("loc[{l}]={:x}", read(&st.mem, whole)));
            }
            out.insert(fields.join(" "));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The range `op` accesses (None for a fence).
    fn range(op: &Op) -> Option<Range> {
        match *op {
            Op::Load(r)
            | Op::LibraryLoad(r)
            | Op::Store(r, _)
            | Op::LibraryStore(r, _)
            | Op::SeqCstStore(r, _)
            | Op::Xchg(r, _)
            | Op::Cas(r, _, _) => Some(r),
            Op::Mfence => None,
        }
    }

    #[test]
    fn generation_is_deterministic_and_in_range() {
        for seed in 0..300 {
            let p = generate(seed);
            assert_eq!(p.to_c(), generate(seed).to_c());
            assert!((2..=4).contains(&p.threads.len()) && (2..=3).contains(&p.locations));
            for ops in &p.threads {
                assert!((1..=5).contains(&ops.len()));
                for r in ops.iter().filter_map(range) {
                    assert!(
                        r == Range::pair()
                            || r.offset % r.width == 0
                                && r.offset + r.width <= 8
                                && r.loc < p.locations
                    );
                }
            }
        }
    }

    #[test]
    fn the_ci_seeds_include_16_byte_compare_exchanges() {
        let wide = (0..150)
            .filter(|&seed| generate(seed).threads.iter().flatten().any(Op::is_wide))
            .count();
        assert!(wide >= 5, "{wide} of the first 150 programs");
    }

    fn sb(width: u32) -> TsoProgram {
        let x = Range {
            loc: 0,
            offset: 0,
            width,
        };
        let y = Range {
            loc: 1,
            offset: 0,
            width,
        };
        TsoProgram {
            seed: 0,
            locations: 2,
            threads: vec![
                vec![Op::Store(x, 0x11), Op::Load(y)],
                vec![Op::Store(y, 0x21), Op::Load(x)],
            ],
        }
    }

    /// Store buffering: both loads may see 0 under TSO (any bound), never under SC.
    #[test]
    fn machine_on_store_buffering() {
        let both_zero = "r0_1=0 r1_1=0 loc[0]=11111111 loc[1]=21212121";
        assert!(!machine_outcomes(&sb(4), Some(0)).contains(both_zero));
        assert_eq!(machine_outcomes(&sb(4), Some(0)).len(), 3);
        for bound in [Some(1), Some(2), None] {
            let tso = machine_outcomes(&sb(4), bound);
            assert!(tso.contains(both_zero), "{tso:?}");
            assert_eq!(tso.len(), 4);
        }
    }

    /// A 2-byte load inside an own buffered 4-byte store forwards those bytes; the
    /// other half of an 8-byte load comes from memory.
    #[test]
    fn machine_forwards_partial_bytes() {
        let word = Range {
            loc: 0,
            offset: 0,
            width: 4,
        };
        let half = Range {
            loc: 0,
            offset: 2,
            width: 2,
        };
        let whole = Range {
            loc: 0,
            offset: 0,
            width: 8,
        };
        let p = TsoProgram {
            seed: 0,
            locations: 1,
            threads: vec![
                vec![Op::Store(word, 0x11), Op::Load(half), Op::Load(whole)],
                vec![],
            ],
        };
        let got = machine_outcomes(&p, None);
        assert_eq!(
            got,
            BTreeSet::from(["r0_1=1111 r0_2=11111111 loc[0]=11111111".to_string()])
        );
    }

    /// mfence between store and load removes the store-buffering outcome.
    #[test]
    fn machine_mfence_restores_sc() {
        let mut p = sb(8);
        for ops in &mut p.threads {
            ops.insert(1, Op::Mfence);
        }
        let sc: BTreeSet<String> = machine_outcomes(&p, Some(0));
        assert_eq!(machine_outcomes(&p, None), sc);
        assert_eq!(machine_outcomes(&p, Some(1)), sc);
    }

    #[test]
    fn patterns_fill_the_width() {
        assert_eq!(pattern(0x21, 1), "0x21ull");
        assert_eq!(pattern(0x21, 4), "0x21212121ull");
        assert_eq!(pattern(0x13, 8), "0x1313131313131313ull");
    }
}
