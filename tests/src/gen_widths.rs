//! Generated C programs that compute with integers of every width from 1 to 256 bits
//! (`_BitInt(N)`, which clang lowers to LLVM's `iN`): arithmetic, division, shifts,
//! comparisons, casts between widths, conversions to and from `double`, bit counts,
//! overflow checks, rotations, minimum, maximum and absolute value, on operands read
//! from memory. Each result is printed in hexadecimal, so the native build (clang's
//! own code generation) is the oracle for the checker's output.

use crate::prng::Rng;
use std::fmt::Write;

/// Operands per width; every ordered pair is computed.
pub const OPERANDS: u32 = 3;

/// The widths casts convert to and from (besides the program's own widths).
const CAST_WIDTHS: [u32; 10] = [1, 7, 24, 40, 64, 65, 96, 128, 168, 256];

/// A value of `bits` bits as a C `unsigned _BitInt` literal, from `rng` with a bias
/// towards the edges (0, 1, all ones, the sign bit alone, the largest signed value).
fn operand(rng: &mut Rng, bits: u32) -> String {
    let limbs = bits.div_ceil(64) as usize;
    let mut l: Vec<u64> = (0..limbs).map(|_| rng.next_u64()).collect();
    match rng.below(8) {
        0 => l.iter_mut().for_each(|x| *x = 0),
        1 => {
            l.iter_mut().for_each(|x| *x = 0);
            l[0] = 1;
        }
        2 => l.iter_mut().for_each(|x| *x = u64::MAX),
        3 => {
            l.iter_mut().for_each(|x| *x = 0);
            l[(bits as usize - 1) / 64] = 1 << ((bits - 1) % 64);
        }
        4 => {
            l.iter_mut().for_each(|x| *x = u64::MAX);
            l[(bits as usize - 1) / 64] &= !(1 << ((bits - 1) % 64));
        }
        5 => {
            // A small magnitude, positive or negative.
            let small = rng.below(1000);
            let negative = rng.below(2) == 0;
            l.iter_mut()
                .for_each(|x| *x = if negative { u64::MAX } else { 0 });
            l[0] = if negative {
                small.wrapping_neg()
            } else {
                small
            };
        }
        _ => {}
    }
    if !bits.is_multiple_of(64) {
        l[limbs - 1] &= (1u64 << (bits % 64)) - 1;
    }
    let mut s = String::from("0x");
    for x in l.iter().rev() {
        let _ = write!(s, "{x:016x}");
    }
    s + "uwb"
}

/// The program for the widths `widths`, its operands from `seed`.
pub fn program(seed: u64, widths: &[u32]) -> String {
    let mut rng = Rng::new(seed);
    let mut c = String::from(
        "#include <stdio.h>\n\
         #include <string.h>\n\
         /* Prints a value of N bits in hexadecimal, most significant limb first. */\n\
         #define PR(x, N) do { for (int k_ = ((N) - 1) / 64; k_ >= 0; k_--) \\\n\
             printf(\"%016llx\", (unsigned long long)((x) >> (64 * k_))); \\\n\
             printf(\" \"); } while (0)\n\
         #define NL() printf(\"\\n\")\n\
         /* A double by its bits (the engine's printf has no exact %a). */\n\
         #define PD(d) do { double d_ = (d); unsigned long long b_; \\\n\
             memcpy(&b_, &d_, 8); printf(\"%016llx \", b_); } while (0)\n",
    );
    for &n in widths {
        let _ = writeln!(c, "typedef unsigned _BitInt({n}) u{n};");
        if n >= 2 {
            let _ = writeln!(c, "typedef signed _BitInt({n}) s{n};");
        }
    }
    for &m in &CAST_WIDTHS {
        if !widths.contains(&m) {
            let _ = writeln!(c, "typedef unsigned _BitInt({m}) u{m};");
            if m >= 2 {
                let _ = writeln!(c, "typedef signed _BitInt({m}) s{m};");
            }
        }
    }
    // Operands in memory (external linkage: -O2 cannot fold them).
    for &n in widths {
        let vals: Vec<String> = (0..OPERANDS).map(|_| operand(&mut rng, n)).collect();
        let _ = writeln!(c, "u{n} op{n}[{OPERANDS}] = {{ {} }};", vals.join(", "));
    }
    for &n in widths {
        let _ = writeln!(c, "static void t{n}(void) {{");
        let _ = writeln!(
            c,
            "  for (int i = 0; i < {OPERANDS}; i++) for (int j = 0; j < {OPERANDS}; j++) {{"
        );
        let _ = writeln!(c, "    u{n} a = op{n}[i], b = op{n}[j];");
        let _ = writeln!(c, "    unsigned s = (unsigned)(b % {n});");
        let _ = writeln!(c, "    printf(\"w{n} %d %d: \", i, j);");
        for e in [
            "a + b",
            "a - b",
            "a * b",
            "a & b",
            "a | b",
            "a ^ b",
            "~a",
            "-a",
            "a << s",
            "a >> s",
            "b ? a / b : 0",
            "b ? a % b : 0",
            "a < b ? a : b",
            "a > b ? a : b",
            "(a << s) | (a >> (({n} - s) % {n}))",
            "(a >> s) | (a << (({n} - s) % {n}))",
        ] {
            let e = e.replace("{n}", &n.to_string());
            let _ = writeln!(c, "    PR((u{n})({e}), {n});");
        }
        let _ = writeln!(
            c,
            "    printf(\"%d%d%d%d \", a < b, a <= b, a == b, a != b);"
        );
        let _ = writeln!(
            c,
            "    printf(\"%d %d %d \", (int)__builtin_popcountg(a), (int)__builtin_clzg(a, {n}), (int)__builtin_ctzg(a, {n}));"
        );
        let _ = writeln!(
            c,
            "    {{ u{n} r; int o = __builtin_add_overflow(a, b, &r); PR(r, {n}); printf(\"%d \", o); \
             o = __builtin_sub_overflow(a, b, &r); PR(r, {n}); printf(\"%d \", o); }}"
        );
        if n <= 128 {
            let _ = writeln!(
                c,
                "    {{ u{n} r; int o = __builtin_mul_overflow(a, b, &r); PR(r, {n}); printf(\"%d \", o); }}"
            );
        }
        let _ = writeln!(c, "    PD((double)a);");
        if n >= 2 {
            let _ = writeln!(c, "    s{n} sa = (s{n})a, sb = (s{n})b;");
            let _ = writeln!(c, "    s{n} smin = (s{n})((u{n})1 << {});", n - 1);
            for e in [
                "sa >> s",
                "sb != 0 && !(sa == smin && sb == -1) ? sa / sb : 0",
                "sb != 0 && !(sa == smin && sb == -1) ? sa % sb : 0",
                "sa < sb ? sa : sb",
                "sa > sb ? sa : sb",
                "sa < 0 && sa != smin ? -sa : sa",
            ] {
                let _ = writeln!(c, "    PR((u{n})({e}), {n});");
            }
            let _ = writeln!(
                c,
                "    printf(\"%d%d%d%d \", sa < sb, sa <= sb, sa > sb, sa >= sb);"
            );
            let _ = writeln!(
                c,
                "    {{ s{n} r; int o = __builtin_add_overflow(sa, sb, &r); PR((u{n})r, {n}); printf(\"%d \", o); \
                 o = __builtin_sub_overflow(sa, sb, &r); PR((u{n})r, {n}); printf(\"%d \", o); }}"
            );
            if n <= 128 {
                let _ = writeln!(
                    c,
                    "    {{ s{n} r; int o = __builtin_mul_overflow(sa, sb, &r); PR((u{n})r, {n}); printf(\"%d \", o); }}"
                );
            }
            let _ = writeln!(c, "    PD((double)sa);");
            // Back from double: half the magnitude always fits.
            let _ = writeln!(c, "    PR((u{n})(double)(a >> 1), {n});");
            let _ = writeln!(c, "    PR((u{n})(s{n})(double)(sa >> 1), {n});");
        }
        for &m in &CAST_WIDTHS {
            let _ = writeln!(c, "    PR((u{m})a, {m});");
            if n >= 2 {
                let _ = writeln!(c, "    PR((u{m})sa, {m});");
            }
        }
        let _ = writeln!(c, "    NL();");
        let _ = writeln!(c, "  }}");
        let _ = writeln!(c, "}}");
    }
    let _ = writeln!(c, "int main(void) {{");
    for &n in widths {
        let _ = writeln!(c, "  t{n}();");
    }
    let _ = writeln!(c, "  return 0;");
    let _ = writeln!(c, "}}");
    c
}
