//! Locked instructions, fences and odd widths (fixtures `atomics.c`, `rmw_all_ops.ll`,
//! `wide_rmw.ll`, `wide_float_rmw.ll`, `wide_cmpxchg.ll`, `locked_asm.c`).

mod instrument_support;

use inkwell::context::Context;
use inkwell::values::InstructionOpcode;
use instrument_support::*;
use tso_runtime::abi::RmwOp;
use tso_runtime::instrument::{instrument_module, InstrumentError, InstrumentOptions};

fn no_atomic_instructions_left(module: &inkwell::module::Module<'_>) {
    for (f, i) in all_instructions(module) {
        assert!(
            !matches!(
                i.get_opcode(),
                InstructionOpcode::AtomicRMW
                    | InstructionOpcode::AtomicCmpXchg
                    | InstructionOpcode::Fence
            ),
            "{f}: {i} left in place"
        );
    }
}

#[test]
fn every_rmw_operation_gets_its_op_code() {
    let ctx = Context::create();
    let module = parse_ll(&ctx, "rmw_all_ops.ll");
    let stats = instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    no_atomic_instructions_left(&module);
    for op in RmwOp::ALL {
        let f = function(&module, &format!("rmw_{}", op.code()));
        let width = if op.is_float() {
            "__tso_rmw_64"
        } else {
            "__tso_rmw_32"
        };
        let calls = calls_to(f, width);
        assert_eq!(calls.len(), 1, "{op:?}");
        assert_eq!(
            const_operand(calls[0], 2),
            Some(u64::from(op.code())),
            "{op:?}"
        );
        if op.is_float() {
            // The double operand travels as its bit pattern and the result is cast back.
            assert_eq!(const_operand(calls[0], 1), Some(1.0f64.to_bits()));
            let back = calls[0].get_next_instruction().expect("bitcast back");
            assert_eq!(back.get_opcode(), InstructionOpcode::BitCast);
        }
    }
    assert_eq!(stats.rmws, 18, "17 ops and the pointer xchg");
}

#[test]
fn c11_atomics_map_to_sized_runtime_calls() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, "atomics.c", "-O0");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    no_atomic_instructions_left(&module);
    let main = function(&module, "main");
    let rmw = |name: &str| -> Vec<u64> {
        calls_to(main, name)
            .iter()
            .filter_map(|c| const_operand(*c, 2))
            .collect()
    };
    let (r8, r16, r32, r64) = (
        rmw("__tso_rmw_8"),
        rmw("__tso_rmw_16"),
        rmw("__tso_rmw_32"),
        rmw("__tso_rmw_64"),
    );
    let code = |op: RmwOp| u64::from(op.code());
    assert!(
        r8.contains(&code(RmwOp::Add)) && r8.contains(&code(RmwOp::Xor)),
        "{r8:?}"
    );
    assert!(
        r16.contains(&code(RmwOp::Sub)) && r16.contains(&code(RmwOp::Xchg)),
        "{r16:?}"
    );
    for op in [RmwOp::And, RmwOp::Nand, RmwOp::UMax, RmwOp::FAdd] {
        assert!(r32.contains(&code(op)), "{op:?} in {r32:?}");
    }
    for op in [RmwOp::Or, RmwOp::Min, RmwOp::FSub, RmwOp::Xchg] {
        assert!(r64.contains(&code(op)), "{op:?} in {r64:?}");
    }
    assert_eq!(calls_to(main, "__tso_cmpxchg_32").len(), 1);
    assert_eq!(calls_to(main, "__tso_cmpxchg_8").len(), 1);
    assert_eq!(calls_to(main, "__tso_cmpxchg_64").len(), 1);
    // The fetch_add line is where its call is reported.
    let add = calls_to(main, "__tso_rmw_8")
        .into_iter()
        .find(|c| const_operand(*c, 2) == Some(1))
        .expect("add");
    assert_eq!(debug_line(add), Some(marker_line("atomics.c", "fetch-add")));
}

#[test]
fn cmpxchg_result_is_rebuilt_from_the_old_value() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, "atomics.c", "-O0");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let main = function(&module, "main");
    for name in ["__tso_cmpxchg_8", "__tso_cmpxchg_32", "__tso_cmpxchg_64"] {
        let cas = calls_to(main, name)[0];
        let icmp = cas.get_next_instruction().expect("icmp");
        assert_eq!(icmp.get_opcode(), InstructionOpcode::ICmp, "{name}");
        assert_eq!(icmp.get_icmp_predicate(), Some(inkwell::IntPredicate::EQ));
        assert_eq!(
            operand(icmp, 0),
            inkwell::values::AsValueRef::as_value_ref(&cas)
        );
        assert_eq!(
            operand(icmp, 1),
            operand(cas, 1),
            "compares with the expected value"
        );
        let inserts: Vec<_> = instructions(main)
            .into_iter()
            .filter(|i| i.get_opcode() == InstructionOpcode::InsertValue)
            .filter(|i| operand(*i, 1) == inkwell::values::AsValueRef::as_value_ref(&icmp))
            .collect();
        assert_eq!(
            inserts.len(),
            1,
            "success flag inserted at index 1 ({name})"
        );
        assert_eq!(inserts[0].get_indices(), vec![1]);
    }
    let cas32 = calls_to(main, "__tso_cmpxchg_32")[0];
    assert_eq!(debug_line(cas32), Some(marker_line("atomics.c", "cas")));
}

#[test]
fn pointer_cmpxchg_and_xchg_go_through_integers() {
    let ctx = Context::create();
    let module = parse_ll(&ctx, "rmw_all_ops.ll");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let cas = calls_to(function(&module, "weak_cas_pointer"), "__tso_cmpxchg_64");
    assert_eq!(cas.len(), 1);
    assert_eq!(operand_opcode(cas[0], 1), Some(InstructionOpcode::PtrToInt));
    assert_eq!(operand_opcode(cas[0], 2), Some(InstructionOpcode::PtrToInt));
    let xchg = calls_to(function(&module, "xchg_pointer"), "__tso_rmw_64");
    assert_eq!(xchg.len(), 1);
    assert_eq!(
        xchg[0].get_next_instruction().map(|i| i.get_opcode()),
        Some(InstructionOpcode::IntToPtr)
    );
}

#[test]
fn only_full_fences_survive() {
    let ctx = Context::create();
    let module = parse_ll(&ctx, "rmw_all_ops.ll");
    let stats = instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    assert_eq!(
        calls_to(function(&module, "fences"), "__tso_fence").len(),
        1
    );
    assert!(stats.removed_fences >= 2);

    let ctx = Context::create();
    let module = load_fixture(&ctx, "atomics.c", "-O0");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    no_atomic_instructions_left(&module);
    let main = function(&module, "main");
    // Full fences: thread_fence(seq_cst), __sync_synchronize, asm mfence. A seq_cst
    // store is x86's `xchg`, a locked store that drains the buffer itself: no fence
    // after it, and no buffered store either.
    let fences = calls_to(main, "__tso_fence");
    let fence_lines: Vec<u32> = fences.iter().filter_map(|f| debug_line(*f)).collect();
    for marker in ["fence", "mfence"] {
        assert!(
            fence_lines.contains(&marker_line("atomics.c", marker)),
            "{marker}: {fence_lines:?}"
        );
    }
    let seq_cst_line = Some(marker_line("atomics.c", "seq-cst-store"));
    assert!(!fence_lines.contains(&marker_line("atomics.c", "seq-cst-store")));
    assert!(calls_to(main, "__tso_store_64")
        .iter()
        .all(|c| debug_line(*c) != seq_cst_line));
    let seq_cst_store = calls_to(main, "__tso_store_locked_64")
        .into_iter()
        .find(|c| debug_line(*c) == seq_cst_line)
        .expect("seq_cst store");
    assert_ne!(next_call(seq_cst_store).as_deref(), Some("__tso_fence"));
    // Relaxed and release stores are not followed by a fence.
    for store in calls_to(main, "__tso_store_32") {
        assert_ne!(next_call(store).as_deref(), Some("__tso_fence"));
    }
    // The compiler barrier `asm("" ::: "memory")` is kept; the mfence asm is gone.
    let asm_calls = instructions(main)
        .into_iter()
        .filter(|i| i.get_opcode() == InstructionOpcode::Call && callee_name(*i).is_none())
        .count();
    assert_eq!(asm_calls, 1);
}

#[test]
fn odd_widths_use_extension_or_bytes() {
    let ctx = Context::create();
    let module = parse_ll(&ctx, "rmw_all_ops.ll");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let f = function(&module, "odd_widths");
    assert_eq!(shared_plain_accesses(&module), Vec::<String>::new());
    // i1 loads as a byte and truncates; stores zero-extend.
    let load8 = calls_to(f, "__tso_load_8");
    assert_eq!(load8.len(), 1);
    assert_eq!(
        load8[0].get_next_instruction().map(|i| i.get_opcode()),
        Some(InstructionOpcode::Trunc)
    );
    assert_eq!(
        operand_opcode(calls_to(f, "__tso_store_8")[0], 1),
        Some(InstructionOpcode::ZExt)
    );
    // half is a 16-bit scalar.
    assert_eq!(calls_to(f, "__tso_load_16").len(), 1);
    assert_eq!(
        operand_opcode(calls_to(f, "__tso_store_16")[0], 1),
        Some(InstructionOpcode::BitCast)
    );
    // i24 (3 bytes), atomic i128 (16), x86_fp80 (10) through temporaries; the seq_cst
    // i128 store is still followed by a fence.
    let mut sizes: Vec<u64> = calls_to(f, "__tso_load_bytes")
        .iter()
        .filter_map(|c| const_operand(*c, 2))
        .collect();
    sizes.sort();
    assert_eq!(sizes, vec![3, 10, 16]);
    let wide_store = calls_to(f, "__tso_store_bytes")
        .into_iter()
        .find(|c| const_operand(*c, 2) == Some(16))
        .expect("i128");
    assert_eq!(next_call(wide_store).as_deref(), Some("__tso_fence"));
    // Temporaries live in the entry block.
    for call in calls_to(f, "__tso_load_bytes") {
        let temp = operand(call, 0);
        // SAFETY: the temporary is an instruction of `f`.
        let temp = unsafe { inkwell::values::InstructionValue::new(temp) };
        assert_eq!(temp.get_opcode(), InstructionOpcode::Alloca);
        assert_eq!(temp.get_parent(), f.get_first_basic_block());
    }
    // memset.inline with an i32 length and a volatile memmove.
    let memset = calls_to(f, "__tso_memset");
    assert_eq!(memset.len(), 1);
    assert_eq!(const_operand(memset[0], 2), Some(12));
    assert_eq!(calls_to(f, "__tso_memmove").len(), 1);
}

#[test]
fn a_16_byte_cmpxchg_is_one_locked_128_bit_call() {
    let ctx = Context::create();
    let module = parse_ll(&ctx, "wide_cmpxchg.ll");
    let stats = instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    assert_eq!(stats.cmpxchgs, 1);
    no_atomic_instructions_left(&module);
    let f = function(&module, "wide_cas");
    let cas = calls_to(f, "__tso_cmpxchg_128");
    assert_eq!(cas.len(), 1);
    // The success flag compares the old value with the expected one, all 128 bits.
    let icmp = cas[0].get_next_instruction().expect("icmp");
    assert_eq!(icmp.get_opcode(), InstructionOpcode::ICmp);
    assert_eq!(
        operand(icmp, 0),
        inkwell::values::AsValueRef::as_value_ref(&cas[0])
    );
    assert_eq!(operand(icmp, 1), operand(cas[0], 1));
}

/// A 16-byte integer `atomicrmw` becomes one locked call, `__tso_rmw_128`, with the
/// operation's code; its result replaces the instruction.
#[test]
fn wide_integer_rmw_becomes_the_128_bit_locked_call() {
    let ctx = Context::create();
    let module = parse_ll(&ctx, "wide_rmw.ll");
    let stats =
        instrument_module(&module, &InstrumentOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stats.rmws, 1);
    no_atomic_instructions_left(&module);
    let rmw = calls_to(function(&module, "wide_rmw"), "__tso_rmw_128");
    assert_eq!(rmw.len(), 1);
}

#[test]
fn unsupported_constructs_are_errors_with_a_location() {
    let ctx = Context::create();
    let module = parse_ll(&ctx, "wide_float_rmw.ll");
    match instrument_module(&module, &InstrumentOptions::default()) {
        Err(InstrumentError::Unsupported { function, what, .. }) => {
            assert_eq!(function, "wide_float_rmw");
            assert!(what.contains("16 bytes"), "{what}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }

    let ctx = Context::create();
    let module = load_fixture(&ctx, "locked_asm.c", "-O0");
    match instrument_module(&module, &InstrumentOptions::default()) {
        Err(InstrumentError::Unsupported {
            function,
            location,
            what,
        }) => {
            assert_eq!(function, "main");
            assert!(location.ends_with("locked_asm.c:6:5"), "{location}");
            assert!(what.contains("xaddl"), "{what}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

/// A compare-exchange hands both its orders to the runtime: the C11 model reads the
/// failure order when the comparison fails (`acquire monotonic` here).
#[test]
fn cmpxchg_passes_its_success_and_failure_orders() {
    use tso_engine::MemOrder;
    let ctx = Context::create();
    let module = parse_ll(&ctx, "rmw_all_ops.ll");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let cas = calls_to(function(&module, "weak_cas_pointer"), "__tso_cmpxchg_64");
    assert_eq!(
        const_operand(cas[0], 3),
        Some(u64::from(MemOrder::Acquire.code()))
    );
    assert_eq!(
        const_operand(cas[0], 4),
        Some(u64::from(MemOrder::Relaxed.code()))
    );
    let ctx = Context::create();
    let module = parse_ll(&ctx, "wide_cmpxchg.ll");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let wide = all_instructions(&module)
        .into_iter()
        .map(|(_, i)| i)
        .find(|i| callee_name(*i).as_deref() == Some("__tso_cmpxchg_128"))
        .expect("cmpxchg16b call");
    assert_eq!(
        const_operand(wide, 4),
        Some(u64::from(MemOrder::SeqCst.code()))
    );
}

/// With `keep_orders` (the C11 model) every thread fence stays, with its order, and a
/// seq_cst store is not followed by a full fence; single-thread fences still go.
#[test]
fn keep_orders_keeps_every_thread_fence_and_no_fence_after_a_seq_cst_store() {
    use tso_engine::MemOrder;
    let keep = InstrumentOptions {
        keep_orders: true,
        ..InstrumentOptions::default()
    };
    let ctx = Context::create();
    let module = parse_ll(&ctx, "rmw_all_ops.ll");
    instrument_module(&module, &keep).expect("instrument");
    no_atomic_instructions_left(&module);
    let fences = function(&module, "fences");
    assert!(calls_to(fences, "__tso_fence").is_empty());
    let orders: Vec<Option<u64>> = calls_to(fences, "__tso_fence_order")
        .into_iter()
        .map(|c| const_operand(c, 0))
        .collect();
    assert_eq!(
        orders,
        [MemOrder::AcqRel, MemOrder::SeqCst].map(|o| Some(u64::from(o.code())))
    );

    let ctx = Context::create();
    let module = load_fixture(&ctx, "atomics.c", "-O0");
    instrument_module(&module, &keep).expect("instrument");
    let main = function(&module, "main");
    let seq_cst_store = calls_to(main, "__tso_store_64")
        .into_iter()
        .find(|c| debug_line(*c) == Some(marker_line("atomics.c", "seq-cst-store")))
        .expect("seq_cst store");
    assert_ne!(next_call(seq_cst_store).as_deref(), Some("__tso_fence"));
    let fence_lines: Vec<u32> = calls_to(main, "__tso_fence_order")
        .iter()
        .filter_map(|f| debug_line(*f))
        .collect();
    assert!(fence_lines.contains(&marker_line("atomics.c", "fence")));
}

/// Under C11 (`keep_orders`) a `cmpxchg weak` calls `__tso_cmpxchg_weak_N`, whose
/// `{iN, i1}` gives the value read and whether it stored (it may fail although the
/// values are equal); a strong one, and every one under x86-TSO, still calls
/// `__tso_cmpxchg_N` and compares.
#[test]
fn keep_orders_sends_a_weak_cmpxchg_to_the_weak_runtime_call() {
    use tso_engine::MemOrder;
    let keep = InstrumentOptions {
        keep_orders: true,
        ..InstrumentOptions::default()
    };
    let ctx = Context::create();
    let module = parse_ll(&ctx, "rmw_all_ops.ll");
    let stats = instrument_module(&module, &keep).expect("instrument");
    no_atomic_instructions_left(&module);
    let f = function(&module, "weak_cas_pointer");
    assert!(calls_to(f, "__tso_cmpxchg_64").is_empty());
    let cas = calls_to(f, "__tso_cmpxchg_weak_64");
    assert_eq!(cas.len(), 1);
    assert_eq!(operand_opcode(cas[0], 1), Some(InstructionOpcode::PtrToInt));
    assert_eq!(
        (const_operand(cas[0], 3), const_operand(cas[0], 4)),
        (
            Some(u64::from(MemOrder::Acquire.code())),
            Some(u64::from(MemOrder::Relaxed.code()))
        )
    );
    // The flag is the call's own, not a comparison of the value read.
    assert!(instructions(f)
        .iter()
        .all(|i| i.get_opcode() != InstructionOpcode::ICmp));
    let call = inkwell::values::AsValueRef::as_value_ref(&cas[0]);
    let extracted: Vec<Vec<u32>> = instructions(f)
        .into_iter()
        .filter(|i| i.get_opcode() == InstructionOpcode::ExtractValue && operand(*i, 0) == call)
        .map(|i| i.get_indices())
        .collect();
    assert_eq!(extracted, [vec![0], vec![1]]);
    assert_eq!(stats.weak_cmpxchgs, 1);

    // C: the weak one of `atomics.c` only; 16 bytes too.
    let ctx = Context::create();
    let module = load_fixture(&ctx, "atomics.c", "-O0");
    let stats = instrument_module(&module, &keep).expect("instrument");
    let main = function(&module, "main");
    assert_eq!(calls_to(main, "__tso_cmpxchg_weak_8").len(), 1);
    assert!(calls_to(main, "__tso_cmpxchg_8").is_empty());
    assert_eq!(calls_to(main, "__tso_cmpxchg_32").len(), 1);
    assert_eq!((stats.cmpxchgs, stats.weak_cmpxchgs), (3, 1));
    let ctx = Context::create();
    let module = parse_ll(&ctx, "wide_cmpxchg.ll");
    instrument_module(&module, &keep).expect("instrument");
    let f = function(&module, "wide_cas");
    assert_eq!(calls_to(f, "__tso_cmpxchg_weak_128").len(), 1);

    // x86-TSO: the same weak cmpxchg is a strong one.
    let ctx = Context::create();
    let module = load_fixture(&ctx, "atomics.c", "-O0");
    let stats = instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    assert!(calls_to(function(&module, "main"), "__tso_cmpxchg_weak_8").is_empty());
    assert_eq!(stats.weak_cmpxchgs, 0);
}

/// A store that a full fence follows, with nothing between that another thread could
/// see, is one locked store (`mov; mfence` behaves as `xchg`): after an `mfence`, a
/// seq_cst fence, the fence before a library call, and past a static local's store.
/// Not when a load or another store of shared memory comes between (the load may pass
/// the buffered store; the later store is the one the fence follows), nor before a
/// library call made without fences. Past an unconditional branch, not past a
/// conditional one.
#[test]
fn a_store_a_fence_follows_is_a_locked_store() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, "store_then_fence.c", "-O0");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let locked_at = |f: &str, marker: &str| {
        let line = Some(marker_line("store_then_fence.c", marker));
        let f = function(&module, f);
        let locked = calls_to(f, "__tso_store_locked_32")
            .iter()
            .any(|c| debug_line(*c) == line);
        let plain = calls_to(f, "__tso_store_32")
            .iter()
            .any(|c| debug_line(*c) == line);
        assert!(locked != plain, "{marker}: one store at its line");
        locked
    };
    assert!(locked_at("then_mfence", "then-mfence"));
    assert!(locked_at("then_fence", "then-fence"));
    assert!(locked_at("then_unlock", "then-unlock"));
    assert!(locked_at("then_local_then_mfence", "then-local"));
    assert!(!locked_at("then_load_then_mfence", "then-load"));
    assert!(!locked_at("then_store_then_mfence", "then-store"));
    assert!(locked_at("then_store_then_mfence", "last-store"));
    assert!(!locked_at("then_unfenced_call", "then-strlen"));
    // Across an unconditional branch (both arms of an `if` join at the unlock), but not
    // past a load in the block it leads to, nor a loop's conditional branch.
    assert!(locked_at("branch_then_unlock", "if-then-unlock"));
    assert!(locked_at("branch_then_unlock", "else-then-unlock"));
    assert!(!locked_at("branch_then_load", "if-then-load"));
    assert!(!locked_at("loop_then_mfence", "in-loop"));
    // A loop of unconditional branches alone ends the search.
    assert!(!locked_at("store_then_spin", "then-spin"));
}
