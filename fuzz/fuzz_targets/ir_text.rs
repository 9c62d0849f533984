//! Mutated LLVM IR text → parse and verify (LLVM) → translate → a tightly bounded check.
//! Any panic in translation or checking is a finding: user input must give a verdict.
#![no_main]

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use libfuzzer_sys::fuzz_target;
use std::time::Duration;
use tso_engine::{CheckOptions, Natives};

fuzz_target!(|data: &[u8]| {
    // LLVM's parser wants text; the buffer gets its terminating NUL from the copy.
    let Ok(text) = std::str::from_utf8(data) else { return };
    if text.contains('\0') {
        return;
    }
    let ctx = Context::create();
    let buffer = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "fuzz.ll");
    let Ok(module) = ctx.create_module_from_ir(buffer) else { return };
    if module.verify().is_err() {
        return;
    }
    let program = tso_engine::loader::translate(&module);
    let mut opts = CheckOptions::default();
    opts.limits.max_states = Some(1_000);
    opts.limits.timeout = Some(Duration::from_secs(1));
    opts.limits.max_memory = Some(1 << 30);
    opts.machine.max_steps = 100_000;
    opts.machine.max_memory = 64 << 20;
    let _ = tso_engine::check(&program, &Natives::standard(), &opts);
});
