//! rand/srand/rand_r: a deterministic generator (the LCG from the POSIX rand_r example,
//! not glibc's sequence), so a program's "random" numbers are the same on every path and
//! every run. The seed is process-wide hidden state; rand() is a scheduling point since
//! threads calling it race on that seed. Nondeterminism wanted? Use tso_choose.

use super::hidden::{get, set, RAND_SEED};
use crate::natives::arg;
use crate::natives::{NativeResult, Natives, Visibility};
use crate::value::Val;

/// Seed before any srand() call (as C requires: like srand(1)).
const DEFAULT_SEED: u32 = 1;

fn step(seed: u32) -> (u32, u32) {
    let next = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
    (next, (next / 65_536) % 32_768)
}

pub(crate) fn register(n: &mut Natives) {
    n.add("rand", Visibility::Always, |cx, _| {
        // The seed is stored plus one, so that a stored 0 (absent) means "never seeded".
        let seed = get(cx, true, RAND_SEED)
            .map(|v| v.as_u64().wrapping_sub(1) as u32)
            .unwrap_or(DEFAULT_SEED);
        let (next, out) = step(seed);
        set(cx, true, RAND_SEED, Val::Int(next as u128 + 1));
        Ok(NativeResult::Return(Val::Int(out as u128)))
    });
    n.add("srand", Visibility::Always, |cx, a| {
        set(cx, true, RAND_SEED, Val::Int(arg(a, 0)? as u32 as u128 + 1));
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.alias("srandom", "srand");
    n.alias("random", "rand");
    n.add("rand_r", Visibility::IfShared(0), |cx, a| {
        let p = arg(a, 0)?;
        let (next, out) = step(cx.read_int(p, 4)? as u32);
        cx.write_int(p, 4, next as u64)?;
        Ok(NativeResult::Return(Val::Int(out as u128)))
    });
}
