//! Plain loads and stores, static locals, memory release and library calls
//! (fixture `shared_memory.c`).

mod instrument_support;

use inkwell::context::Context;
use inkwell::values::InstructionOpcode;
use instrument_support::*;
use tso_runtime::instrument::{instrument_module, InstrumentOptions};

const FIXTURE: &str = "shared_memory.c";

#[test]
fn every_shared_access_becomes_a_runtime_call_at_o0_and_o2() {
    for opt in ["-O0", "-O2"] {
        let ctx = Context::create();
        let module = load_fixture(&ctx, FIXTURE, opt);
        assert!(
            !shared_plain_accesses(&module).is_empty(),
            "fixture has shared accesses"
        );
        let stats = instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
        module.verify().expect("instrumented module verifies");
        assert_eq!(
            shared_plain_accesses(&module),
            Vec::<String>::new(),
            "{opt}"
        );
        assert!(stats.loads > 0 && stats.stores > 0, "{opt}: {stats:?}");
    }
}

#[test]
fn each_scalar_width_and_kind_uses_its_function() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, FIXTURE, "-O0");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let main = function(&module, "main");
    for name in [
        "__tso_store_8",
        "__tso_store_16",
        "__tso_store_32",
        "__tso_store_64",
    ] {
        assert!(!calls_to(main, name).is_empty(), "{name} missing");
    }
    // g_float = 1.5f: the constant is bitcast to i32 (folded: 1.5f == 0x3fc00000).
    let float_stores: Vec<_> = calls_to(main, "__tso_store_32")
        .into_iter()
        .filter(|c| const_operand(*c, 1) == Some(u64::from(1.5f32.to_bits())))
        .collect();
    assert_eq!(float_stores.len(), 1);
    // Loading g_ptr (a pointer) goes through __tso_load_64 and inttoptr.
    let inttoptr = instructions(main)
        .into_iter()
        .filter(|i| i.get_opcode() == InstructionOpcode::IntToPtr)
        .filter(|i| operand_opcode(*i, 0) == Some(InstructionOpcode::Call))
        .count();
    assert!(inttoptr >= 1);
    // long double (10 bytes) and __int128 (16 bytes) use the byte forms.
    let sizes: Vec<u64> = calls_to(main, "__tso_store_bytes")
        .iter()
        .filter_map(|c| const_operand(*c, 2))
        .collect();
    assert!(
        sizes.contains(&10) && sizes.contains(&16),
        "store_bytes sizes {sizes:?}"
    );
    let sizes: Vec<u64> = calls_to(main, "__tso_load_bytes")
        .iter()
        .filter_map(|c| const_operand(*c, 2))
        .collect();
    assert!(
        sizes.contains(&10) && sizes.contains(&16),
        "load_bytes sizes {sizes:?}"
    );
    // memset/memcpy intrinsics (and the struct copies) become __tso_memset/__tso_memcpy.
    assert_eq!(calls_to(main, "__tso_memset").len(), 1);
    assert!(calls_to(main, "__tso_memcpy").len() >= 2);
    let intrinsics = instructions(main)
        .into_iter()
        .filter(|i| callee_name(*i).is_some_and(|n| n.starts_with("llvm.mem")))
        .count();
    assert_eq!(intrinsics, 0);
}

#[test]
fn static_locals_stay_plain_unless_disabled() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, FIXTURE, "-O0");
    let stats = instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    assert!(
        stats.static_locals > 0 && stats.static_local_accesses > 0,
        "{stats:?}"
    );
    let main = function(&module, "main");
    let plain_counter = instructions(main)
        .into_iter()
        .filter(|i| {
            matches!(
                i.get_opcode(),
                InstructionOpcode::Load | InstructionOpcode::Store
            )
        })
        .filter(|i| {
            let ptr = if i.get_opcode() == InstructionOpcode::Load {
                operand(*i, 0)
            } else {
                operand(*i, 1)
            };
            alloca_name(ptr).as_deref() == Some("counter")
        })
        .count();
    assert!(
        plain_counter >= 2,
        "plain accesses to `counter`: {plain_counter}"
    );
    // `escaping` is published, so its accesses go through the runtime.
    let escaping_calls = module_calls(&module, "__tso_")
        .into_iter()
        .filter(|(_, c)| alloca_name(operand(*c, 0)).as_deref() == Some("escaping"))
        .count();
    assert!(escaping_calls >= 2);

    let ctx = Context::create();
    let module = load_fixture(&ctx, FIXTURE, "-O0");
    let stats = instrument_module(
        &module,
        &InstrumentOptions {
            static_locals: false,
            ..InstrumentOptions::default()
        },
    )
    .expect("instrument");
    assert_eq!((stats.static_locals, stats.static_local_accesses), (0, 0));
    let counter_calls = module_calls(&module, "__tso_")
        .into_iter()
        .filter(|(_, c)| alloca_name(operand(*c, 0)).as_deref() == Some("counter"))
        .count();
    assert!(counter_calls >= 2, "with +s off `counter` is instrumented");
}

#[test]
fn released_memory_is_evicted_first() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, FIXTURE, "-O0");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let main = function(&module, "main");
    for releasing in ["free", "realloc"] {
        let call = calls_to(main, releasing);
        assert_eq!(call.len(), 1);
        assert_eq!(
            prev_call(call[0]).as_deref(),
            Some("__tso_evict"),
            "{releasing}"
        );
        let evict = call[0].get_previous_instruction().expect("evict");
        assert_eq!(
            operand(evict, 0),
            operand(call[0], 0),
            "evicts the released pointer"
        );
        assert_eq!(prev_call(evict).as_deref(), Some("__tso_call_fence"));
        assert_eq!(next_call(call[0]).as_deref(), Some("__tso_call_fence"));
    }
    // Before `ret`: the escaping alloca is evicted, the static local is not.
    let ret = instructions(main)
        .into_iter()
        .find(|i| i.get_opcode() == InstructionOpcode::Return)
        .expect("ret");
    let mut evicted = Vec::new();
    let mut cursor = ret.get_previous_instruction();
    while let Some(inst) = cursor.filter(|i| callee_name(*i).as_deref() == Some("__tso_evict")) {
        evicted.push(alloca_name(operand(inst, 0)).unwrap_or_default());
        cursor = inst.get_previous_instruction();
    }
    assert!(
        evicted.contains(&"escaping".to_string()),
        "evicted before ret: {evicted:?}"
    );
    assert!(!evicted.contains(&"counter".to_string()));
}

#[test]
fn library_calls_are_fenced_and_local_calls_are_not() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, FIXTURE, "-O0");
    let stats = instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let main = function(&module, "main");
    for external in ["pthread_create", "pthread_join", "malloc"] {
        let call = calls_to(main, external);
        assert_eq!(call.len(), 1, "{external}");
        assert_eq!(
            prev_call(call[0]).as_deref(),
            Some("__tso_call_fence"),
            "{external}"
        );
        assert_eq!(
            next_call(call[0]).as_deref(),
            Some("__tso_call_fence"),
            "{external}"
        );
    }
    let publish = calls_to(main, "publish");
    assert_eq!(publish.len(), 1);
    assert_ne!(prev_call(publish[0]).as_deref(), Some("__tso_call_fence"));
    assert_ne!(next_call(publish[0]).as_deref(), Some("__tso_call_fence"));
    assert!(stats.external_calls >= 5, "{stats:?}");
}

#[test]
fn thread_local_accesses_are_instrumented_through_the_returned_pointer() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, FIXTURE, "-O0");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let worker = function(&module, "worker");
    let through_tls = |name: &str| {
        calls_to(worker, name)
            .into_iter()
            .filter(|c| {
                let addr = operand(*c, 0);
                // SAFETY: reading the callee of a live call operand.
                let inst = unsafe { inkwell::values::InstructionValue::new(addr) };
                callee_name(inst).is_some_and(|n| n.starts_with("llvm.threadlocal.address"))
            })
            .count()
    };
    assert_eq!(through_tls("__tso_load_32"), 1);
    assert_eq!(through_tls("__tso_store_32"), 1);
}

#[test]
fn inserted_calls_carry_the_source_location() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, FIXTURE, "-O0");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let calls = module_calls(&module, "__tso_");
    assert!(!calls.is_empty());
    for (f, call) in &calls {
        assert!(debug_line(*call).is_some(), "{f}: {call} has no !dbg");
    }
    let main = function(&module, "main");
    let int_line = marker_line(FIXTURE, "int-store");
    let g_int_stores: Vec<_> = calls_to(main, "__tso_store_32")
        .into_iter()
        .filter(|c| const_operand(*c, 1) == Some(3))
        .collect();
    assert_eq!(g_int_stores.len(), 1);
    assert_eq!(debug_line(g_int_stores[0]), Some(int_line));
    let free = calls_to(main, "free")[0];
    let evict = free.get_previous_instruction().expect("evict");
    assert_eq!(debug_line(evict), Some(marker_line(FIXTURE, "free")));
    let worker = function(&module, "worker");
    let heap_line = marker_line(FIXTURE, "heap-store");
    assert!(calls_to(worker, "__tso_store_32")
        .iter()
        .any(|c| debug_line(*c) == Some(heap_line)));
}
