//! Generated C programs that compute with integers of every width from 1 to 256 bits
//! (`_BitInt(N)`, which clang lowers to LLVM's `iN`): arithmetic, division, shifts,
//! comparisons, casts between widths, conversions to and from `double`, bit counts,
//! overflow checks, saturating arithmetic, vector reductions, rotations, minimum, maximum
//! and absolute value, on operands read from memory. Each result is printed in hexadecimal, so the native build (clang's
//! own code generation) is the oracle for the checker's output.

use crate::prng::Rng;
use std::fmt::Write;

/// Operands per width; every ordered pair is computed.
pub const OPERANDS: u32 = 3;

/// The widths casts convert to and from (besides the program's own widths).
const CAST_WIDTHS: [u32; 10] = [1, 7, 24, 40, 64, 65, 96, 128, 168, 256];

/// The widths vectors of `_BitInt` can have (clang wants a power of two, at least a
/// byte), for `llvm.vector.reduce.*`.
const VECTOR_WIDTHS: [u32; 6] = [8, 16, 32, 64, 128, 256];

/// Every `llvm.vector.reduce.*` over four lanes built from `x` and `y` of type
/// `{sign}{n}` (`__builtin_reduce_max` and `_min` are the signed or unsigned forms by
/// the lanes' type).
fn reductions(c: &mut String, n: u32, sign: char, x: &str, y: &str) {
    let _ = writeln!(
        c,
        "    {{ typedef {sign}{n} v_ __attribute__((ext_vector_type(4))); \
         v_ v = {{ {x}, {y}, ({sign}{n})~{x}, ({sign}{n})({x} ^ {y}) }};"
    );
    for r in ["add", "mul", "and", "or", "xor", "max", "min"] {
        let _ = writeln!(c, "      PR((u{n})__builtin_reduce_{r}(v), {n});");
    }
    let _ = writeln!(c, "    }}");
}

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
         /* A double by its bits and in %a. */\n\
         #define PD(d) do { double d_ = (d); unsigned long long b_; \\\n\
             memcpy(&b_, &d_, 8); printf(\"%016llx %a \", b_, d_); } while (0)\n",
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
        // llvm.uadd.sat and llvm.usub.sat.
        let _ = writeln!(
            c,
            "    PR(__builtin_elementwise_add_sat(a, b), {n}); PR(__builtin_elementwise_sub_sat(a, b), {n});"
        );
        if VECTOR_WIDTHS.contains(&n) {
            reductions(&mut c, n, 'u', "a", "b");
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
            // llvm.sadd.sat and llvm.ssub.sat.
            let _ = writeln!(
                c,
                "    PR((u{n})__builtin_elementwise_add_sat(sa, sb), {n}); PR((u{n})__builtin_elementwise_sub_sat(sa, sb), {n});"
            );
            if VECTOR_WIDTHS.contains(&n) {
                reductions(&mut c, n, 's', "sa", "sb");
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

/// The widths LLVM allows atomic operations at (a power of two, at least a byte; x86
/// has them up to 16 bytes).
const ATOMIC_WIDTHS: [u32; 5] = [8, 16, 32, 64, 128];

/// The read-modify-write operations of `atomicrmw` on integers.
const RMW_OPS: [&str; 11] = [
    "xchg", "add", "sub", "and", "nand", "or", "xor", "max", "min", "umax", "umin",
];

/// The integer operations C has no builtin for, written in LLVM IR: `llvm.sshl.sat`,
/// `llvm.ushl.sat`, `llvm.fshl`, `llvm.fshr`, `llvm.bitreverse`, `llvm.bswap` (at
/// widths that are whole 16-bit units) and, at the atomic widths, every `atomicrmw` and
/// `cmpxchg` on a global. `ir_ops{N}(out, a, b)` reads its operands from arrays of
/// 64-bit limbs and writes each result, zero-extended to whole limbs, to `out`
/// (`ir_results(N)` of them), so no `_BitInt` crosses a call. Returns (C, IR): the C
/// program prints every result in hexadecimal; linked with the IR, clang's native
/// build is the oracle, as for `program`.
pub fn ir_program(seed: u64, widths: &[u32]) -> (String, String) {
    let mut rng = Rng::new(seed);
    let mut c = String::from("#include <stdio.h>\n");
    let mut ir = String::new();
    for &n in widths {
        let k = n.div_ceil(64);
        let results = ir_results(n);
        let vals: Vec<String> = (0..OPERANDS).map(|_| operand(&mut rng, n)).collect();
        let _ = writeln!(
            c,
            "typedef unsigned _BitInt({n}) u{n};\n\
             u{n} op{n}[{OPERANDS}] = {{ {} }};\n\
             void ir_ops{n}(unsigned long long *out, const unsigned long long *a, const unsigned long long *b);\n\
             static void t{n}(void) {{\n\
             \x20 for (int i = 0; i < {OPERANDS}; i++) for (int j = 0; j < {OPERANDS}; j++) {{\n\
             \x20   unsigned long long a[{k}], b[{k}], out[{}];\n\
             \x20   for (int q = 0; q < {k}; q++) {{ a[q] = (unsigned long long)(op{n}[i] >> (64 * q)); b[q] = (unsigned long long)(op{n}[j] >> (64 * q)); }}\n\
             \x20   ir_ops{n}(out, a, b);\n\
             \x20   printf(\"w{n} %d %d:\", i, j);\n\
             \x20   for (int r = 0; r < {results}; r++) {{ printf(\" \"); for (int q = {k} - 1; q >= 0; q--) printf(\"%016llx\", out[r * {k} + q]); }}\n\
             \x20   printf(\"\\n\");\n\
             \x20 }}\n\
             }}",
            vals.join(", "),
            results * k,
        );
        ir_function(&mut ir, n);
    }
    let _ = writeln!(c, "int main(void) {{");
    for &n in widths {
        let _ = writeln!(c, "  t{n}();");
    }
    let _ = writeln!(c, "  return 0;\n}}");
    // 16-byte atomics inline (cmpxchg16b), as the checker models them; not inlined
    // into the C driver, whose functions lack the feature.
    let _ = writeln!(
        ir,
        "attributes #0 = {{ noinline \"target-features\"=\"+cx16\" }}"
    );
    (c, ir)
}

/// How many results `ir_ops{n}` writes.
pub fn ir_results(n: u32) -> u32 {
    let bswap = u32::from(n.is_multiple_of(16));
    let atomics = if ATOMIC_WIDTHS.contains(&n) {
        // Old and new value per operation; two compare-exchanges give old, success
        // and the memory after each.
        2 * RMW_OPS.len() as u32 + 6
    } else {
        0
    };
    3 + 2 * u32::from(funnels(n)) + bswap + atomics
}

/// Whether the native build can compile a funnel shift at width `n`: its amount is
/// taken modulo `n`, and x86's code generator has no remainder wider than 128 bits
/// except by a power of two.
fn funnels(n: u32) -> bool {
    n <= 128 || n.is_power_of_two()
}

/// `ir_ops{n}` in LLVM IR (see `ir_program`).
fn ir_function(ir: &mut String, n: u32) {
    let w = 64 * n.div_ceil(64);
    let t = format!("i{n}");
    let mut body = String::new();
    let mut fresh = 0u32;
    let mut results: Vec<String> = Vec::new();
    let mut name = || {
        fresh += 1;
        format!("%v{fresh}")
    };
    let operand = |body: &mut String, p: &str, name: String| -> String {
        let _ = writeln!(body, "  {name}.w = load i{w}, ptr %{p}");
        if w == n {
            let _ = writeln!(body, "  {name} = add i{w} {name}.w, 0");
        } else {
            let _ = writeln!(body, "  {name} = trunc i{w} {name}.w to {t}");
        }
        name
    };
    let a = operand(&mut body, "pa", "%a".into());
    let b = operand(&mut body, "pb", "%b".into());
    // A shift amount below n (shl.sat is poison at n or more).
    let _ = writeln!(body, "  %s = urem {t} {b}, {n}");
    let mut call = |body: &mut String, f: &str, args: &[&str]| -> String {
        let r = name();
        let args: Vec<String> = args.iter().map(|x| format!("{t} {x}")).collect();
        let _ = writeln!(body, "  {r} = call {t} @llvm.{f}.{t}({})", args.join(", "));
        r
    };
    results.push(call(&mut body, "sshl.sat", &[&a, "%s"]));
    results.push(call(&mut body, "ushl.sat", &[&a, "%s"]));
    results.push(call(&mut body, "bitreverse", &[&a]));
    let mut decls = vec![
        format!("declare {t} @llvm.sshl.sat.{t}({t}, {t})"),
        format!("declare {t} @llvm.ushl.sat.{t}({t}, {t})"),
        format!("declare {t} @llvm.bitreverse.{t}({t})"),
    ];
    if funnels(n) {
        results.push(call(&mut body, "fshl", &[&a, &b, &b]));
        results.push(call(&mut body, "fshr", &[&a, &b, &b]));
        decls.push(format!("declare {t} @llvm.fshl.{t}({t}, {t}, {t})"));
        decls.push(format!("declare {t} @llvm.fshr.{t}({t}, {t}, {t})"));
    }
    if n.is_multiple_of(16) {
        results.push(call(&mut body, "bswap", &[&a]));
        decls.push(format!("declare {t} @llvm.bswap.{t}({t})"));
    }
    let mut zext_results: Vec<(String, String)> =
        results.into_iter().map(|r| (r, t.clone())).collect();
    if ATOMIC_WIDTHS.contains(&n) {
        let cell = format!("@cell{n}");
        let _ = writeln!(ir, "{cell} = global {t} 0, align {}", n / 8);
        for op in RMW_OPS {
            let (old, new) = (format!("%{op}.old"), format!("%{op}.new"));
            let _ = writeln!(
                body,
                "  store atomic {t} {a}, ptr {cell} seq_cst, align {}",
                n / 8
            );
            let _ = writeln!(
                body,
                "  {old} = atomicrmw {op} ptr {cell}, {t} {b} seq_cst, align {}",
                n / 8
            );
            let _ = writeln!(
                body,
                "  {new} = load atomic {t}, ptr {cell} seq_cst, align {}",
                n / 8
            );
            zext_results.push((old, t.clone()));
            zext_results.push((new, t.clone()));
        }
        // Expecting b (succeeds when a = b), then expecting what memory holds.
        let _ = writeln!(body, "  store {t} {a}, ptr {cell}");
        let _ = writeln!(body, "  %na = xor {t} {a}, -1");
        for (i, expected) in [b.as_str(), "%cx1.cur"].iter().enumerate() {
            let _ = writeln!(
                body,
                "  %cx{i} = cmpxchg ptr {cell}, {t} {expected}, {t} %na seq_cst seq_cst, align {}",
                n / 8
            );
            let _ = writeln!(body, "  %cx{i}.old = extractvalue {{ {t}, i1 }} %cx{i}, 0");
            let _ = writeln!(body, "  %cx{i}.ok = extractvalue {{ {t}, i1 }} %cx{i}, 1");
            let _ = writeln!(body, "  %cx{}.cur = load {t}, ptr {cell}", i + 1);
            zext_results.push((format!("%cx{i}.old"), t.clone()));
            zext_results.push((format!("%cx{i}.ok"), "i1".into()));
            zext_results.push((format!("%cx{}.cur", i + 1), t.clone()));
        }
    }
    for (i, (r, ty)) in zext_results.iter().enumerate() {
        if *ty == format!("i{w}") {
            let _ = writeln!(body, "  %z{i} = add i{w} {r}, 0");
        } else {
            let _ = writeln!(body, "  %z{i} = zext {ty} {r} to i{w}");
        }
        let _ = writeln!(
            body,
            "  %p{i} = getelementptr i8, ptr %out, i64 {}",
            i as u32 * w / 8
        );
        let _ = writeln!(body, "  store i{w} %z{i}, ptr %p{i}, align 8");
    }
    debug_assert_eq!(zext_results.len() as u32, ir_results(n));
    for d in decls {
        let _ = writeln!(ir, "{d}");
    }
    let _ = writeln!(
        ir,
        "define void @ir_ops{n}(ptr %out, ptr %pa, ptr %pb) #0 {{\n{body}  ret void\n}}"
    );
}
