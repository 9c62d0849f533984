//! The inline assembly the checker understands, by its text. The engine (`functions.rs`)
//! and the TSO pass of `tso-runtime` both read an asm statement through [`asm_effect`],
//! so a statement means the same under SC and under TSO.
//!
//! Understood: fences, spin hints and the locked no-op that kernels and lock-free
//! libraries use as a full fence (`lock; addl $0,-4(%rsp)`: a locked instruction
//! drains the store buffer, and adding 0 to the stack changes no value). Anything else
//! is `unsupported`: guessing what it does could turn a bug into a pass.

/// What an inline asm statement does to memory ordering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AsmEffect {
    /// `mfence`, or a locked no-op on the stack: a full fence.
    FullFence,
    /// Only `lfence`/`sfence` (and spin hints): they order nothing x86-TSO reorders
    /// for ordinary memory.
    NoOpFence,
    /// Empty (a compiler barrier), `pause`, `nop`.
    Harmless,
    Unknown,
}

/// The effect of the asm statement `text`, in LLVM's spelling (`$$` for `$`).
pub fn asm_effect(text: &str) -> AsmEffect {
    let lower = text.to_ascii_lowercase();
    let mut effect = AsmEffect::Harmless;
    let mut pieces = lower.split([';', '\n']).map(str::trim).peekable();
    while let Some(piece) = pieces.next() {
        let piece = match piece {
            // `lock` as a separate statement prefixes the next one.
            "lock" => match pieces.next() {
                Some(next) => format!("lock {next}"),
                None => return AsmEffect::Unknown,
            },
            p => p.to_owned(),
        };
        match piece.as_str() {
            "" | "pause" | "nop" | "rep" | "rep nop" => {}
            "lfence" | "sfence" if effect == AsmEffect::Harmless => effect = AsmEffect::NoOpFence,
            "lfence" | "sfence" => {}
            "mfence" => effect = AsmEffect::FullFence,
            p if is_locked_stack_no_op(p) => effect = AsmEffect::FullFence,
            _ => return AsmEffect::Unknown,
        }
    }
    effect
}

/// `lock add/or $0, OFFSET(%rsp)` in its l and q forms: a locked read-modify-write of
/// the stack that writes back the value it read.
fn is_locked_stack_no_op(piece: &str) -> bool {
    let Some(rest) = piece.strip_prefix("lock") else {
        return false;
    };
    let mut words = rest.split_whitespace();
    let (Some(op), operands) = (words.next(), words.collect::<String>()) else {
        return false;
    };
    if !matches!(op, "addl" | "addq" | "orl" | "orq") {
        return false;
    }
    let Some((zero, target)) = operands.split_once(',') else {
        return false;
    };
    let Some(offset) = target.strip_suffix("(%rsp)") else {
        return false;
    };
    matches!(zero, "$$0" | "$$0x0")
        && (offset.is_empty() || offset.trim_start_matches('-').parse::<u32>().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_hints() {
        assert_eq!(asm_effect("mfence"), AsmEffect::FullFence);
        assert_eq!(asm_effect("  MFENCE  "), AsmEffect::FullFence);
        assert_eq!(asm_effect(""), AsmEffect::Harmless);
        assert_eq!(asm_effect("pause"), AsmEffect::Harmless);
        assert_eq!(asm_effect("rep; nop"), AsmEffect::Harmless);
        assert_eq!(asm_effect("lfence"), AsmEffect::NoOpFence);
        assert_eq!(asm_effect("sfence\n"), AsmEffect::NoOpFence);
        assert_eq!(asm_effect("sfence; mfence"), AsmEffect::FullFence);
        assert_eq!(asm_effect("mfence; lfence"), AsmEffect::FullFence);
    }

    #[test]
    fn the_locked_no_op_on_the_stack_is_a_full_fence() {
        for text in [
            "lock; addl $$0,0(%rsp)",
            "lock; addl $$0,(%rsp)",
            "lock; addl $$0,-4(%rsp)",
            "lock addl $$0, -4(%rsp)",
            "lock; orq $$0,(%rsp)",
            "lock\n addq $$0x0,8(%rsp)",
        ] {
            assert_eq!(asm_effect(text), AsmEffect::FullFence, "{text}");
        }
    }

    #[test]
    fn locked_instructions_that_change_memory_are_unknown() {
        for text in [
            "lock; addl $$1,(%rsp)",
            "lock; addl $$0,(%rax)",
            "lock; subl $$0,(%rsp)",
            "lock; xaddl %eax,(%rsp)",
            "lock",
            "addl $$0,(%rsp)",
            "lock; addl $$0,x(%rsp)",
            "mfence; movl $$1,(%rax)",
        ] {
            assert_eq!(asm_effect(text), AsmEffect::Unknown, "{text}");
        }
    }
}
