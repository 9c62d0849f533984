//! Frame shapes: allocas outside the entry block, musttail, invoke, indirect calls
//! (fixture `frames.ll`).

mod instrument_support;

use inkwell::context::Context;
use inkwell::values::InstructionOpcode;
use instrument_support::*;
use tso_runtime::instrument::{instrument_module, InstrumentOptions};

fn instrumented(ctx: &Context) -> inkwell::module::Module<'_> {
    let module = parse_ll(ctx, "frames.ll");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    module
}

#[test]
fn slots_are_evicted_only_where_they_dominate_the_return() {
    let ctx = Context::create();
    let module = instrumented(&ctx);
    assert!(calls_to(function(&module, "conditional_slot"), "__tso_evict").is_empty());
    let evicts = calls_to(function(&module, "dominating_slot"), "__tso_evict");
    assert_eq!(evicts.len(), 1);
    assert_eq!(value_name(operand(evicts[0], 0)), "buf");
}

#[test]
fn musttail_stays_next_to_its_return() {
    let ctx = Context::create();
    let module = instrumented(&ctx);
    let f = function(&module, "musttail_caller");
    let tail = calls_to(f, "ext_tail");
    assert_eq!(tail.len(), 1);
    assert_eq!(
        tail[0].get_next_instruction().map(|i| i.get_opcode()),
        Some(InstructionOpcode::Return)
    );
    assert_eq!(prev_call(tail[0]).as_deref(), Some("__tso_evict"));
}

#[test]
fn invoke_is_fenced_before_and_in_its_normal_destination() {
    let ctx = Context::create();
    let module = instrumented(&ctx);
    let f = function(&module, "invoker");
    let invoke = calls_to(f, "ext");
    assert_eq!(invoke.len(), 1);
    assert_eq!(prev_call(invoke[0]).as_deref(), Some("__tso_call_fence"));
    let ok = f
        .get_basic_block_iter()
        .find(|bb| bb.get_name().to_str() == Ok("ok"))
        .expect("ok block");
    let first = ok.get_first_instruction().expect("first");
    assert_eq!(callee_name(first).as_deref(), Some("__tso_call_fence"));
}

#[test]
fn indirect_calls_are_left_alone() {
    let ctx = Context::create();
    let module = instrumented(&ctx);
    assert!(calls_to(function(&module, "indirect"), "__tso_call_fence").is_empty());
}

#[test]
fn a_clashing_runtime_declaration_is_reported() {
    let ctx = Context::create();
    let ir = "declare i32 @__tso_fence()\ndefine void @f() {\n  fence seq_cst\n  ret void\n}\n";
    let buffer =
        inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "clash");
    let module = ctx.create_module_from_ir(buffer).expect("parse");
    match instrument_module(&module, &InstrumentOptions::default()) {
        Err(tso_runtime::instrument::InstrumentError::ConflictingDeclaration { name, .. }) => {
            assert_eq!(name, "__tso_fence")
        }
        other => panic!("expected ConflictingDeclaration, got {other:?}"),
    }
}
