//! Whole programs: -O2 vectorised code, C++ std::atomic/std::thread, and a readable
//! dump of one instrumented program (run with `--nocapture` to see it).

mod instrument_support;

use inkwell::context::Context;
use inkwell::values::InstructionOpcode;
use instrument_support::*;
use tso_runtime::instrument::{instrument_module, InstrumentOptions};

#[test]
fn vectorised_o2_code_is_instrumented_through_bytes() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, "vectorised.c", "-O2");
    let vector_accesses = all_instructions(&module)
        .into_iter()
        .filter(|(_, i)| {
            matches!(
                i.get_opcode(),
                InstructionOpcode::Load | InstructionOpcode::Store
            )
        })
        .filter(|(_, i)| i.to_string().contains(" x i32>"))
        .count();
    assert!(vector_accesses > 0, "clang -O2 vectorised the fixture");
    let stats = instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    module.verify().expect("verifies");
    assert_eq!(shared_plain_accesses(&module), Vec::<String>::new());
    assert!(stats.byte_accesses > 0, "{stats:?}");
    let scale = function(&module, "scale");
    let sizes: Vec<u64> = calls_to(scale, "__tso_load_bytes")
        .iter()
        .filter_map(|c| const_operand(*c, 2))
        .collect();
    assert!(sizes.contains(&16), "<4 x i32> loads: {sizes:?}");
}

#[test]
fn cxx_atomics_and_threads_instrument_and_verify() {
    for opt in ["-O0", "-O2"] {
        let ctx = Context::create();
        let module = load_fixture(&ctx, "cxx_threads.cpp", opt);
        let stats = instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
        module.verify().expect("verifies");
        assert_eq!(
            shared_plain_accesses(&module),
            Vec::<String>::new(),
            "{opt}"
        );
        assert!(stats.rmws >= 2 && stats.cmpxchgs >= 1, "{opt}: {stats:?}");
        // std::thread's out-of-line start and join are library calls: fenced.
        for (f, call) in module_calls(&module, "_ZNSt6thread") {
            let name = callee_name(call).unwrap_or_default();
            if module
                .get_function(&name)
                .is_some_and(|g| g.count_basic_blocks() == 0)
            {
                assert_eq!(
                    prev_call(call).as_deref(),
                    Some("__tso_call_fence"),
                    "{opt} {f}: {name}"
                );
                assert_eq!(
                    next_call(call).as_deref(),
                    Some("__tso_call_fence"),
                    "{opt} {f}: {name}"
                );
            }
        }
        let joins = module_calls(&module, "_ZNSt6thread4join").len();
        assert_eq!(joins, 2, "{opt}");
    }
}

#[test]
fn message_passing_reads_as_expected() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, "message_passing.c", "-O0");
    let stats = instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let ir = module.print_to_string().to_string();
    // Printed for a human reader (`cargo test ... -- --nocapture`).
    let body: Vec<&str> = ir
        .lines()
        .filter(|l| !l.starts_with('!') && !l.starts_with("attributes"))
        .collect();
    println!("{stats:#?}\n{}", body.join("\n"));
    let writer = function(&module, "writer");
    let stores = calls_to(writer, "__tso_store_32");
    assert_eq!(stores.len(), 2, "data = 1; flag = 1");
    let targets: Vec<String> = stores.iter().map(|s| value_name(operand(*s, 0))).collect();
    assert_eq!(targets, vec!["data", "flag"]);
    let main = function(&module, "main");
    let loads: Vec<String> = calls_to(main, "__tso_load_32")
        .iter()
        .map(|l| value_name(operand(*l, 0)))
        .collect();
    assert_eq!(loads, vec!["flag", "data"]);
    // `seen` never escapes; `t` escapes into pthread_create and is evicted at return.
    assert!(stats.static_locals >= 1);
    let ret = instructions(main)
        .into_iter()
        .find(|i| i.get_opcode() == InstructionOpcode::Return)
        .expect("ret");
    assert_eq!(prev_call(ret).as_deref(), Some("__tso_evict"));
}

#[test]
fn lifetime_end_of_an_escaping_slot_evicts_it_at_o2() {
    let ctx = Context::create();
    let module = load_fixture(&ctx, "message_passing.c", "-O2");
    instrument_module(&module, &InstrumentOptions::default()).expect("instrument");
    let main = function(&module, "main");
    let ends: Vec<_> = instructions(main)
        .into_iter()
        .filter(|i| callee_name(*i).is_some_and(|n| n.starts_with("llvm.lifetime.end")))
        .collect();
    assert!(!ends.is_empty(), "clang -O2 emits lifetime markers");
    for end in ends {
        let evict = end.get_previous_instruction().expect("evict");
        assert_eq!(callee_name(evict).as_deref(), Some("__tso_evict"));
        assert_eq!(operand(evict, 0), operand(end, 1));
    }
}

#[test]
fn assorted_real_world_constructs_instrument_and_verify() {
    for opt in ["-O0", "-O1", "-O2", "-O3"] {
        for static_locals in [true, false] {
            let ctx = Context::create();
            let module = load_fixture(&ctx, "assorted.c", opt);
            let stats = instrument_module(
                &module,
                &InstrumentOptions {
                    static_locals,
                    ..InstrumentOptions::default()
                },
            )
            .expect("instrument");
            module.verify().expect("verifies");
            assert_eq!(
                shared_plain_accesses(&module),
                Vec::<String>::new(),
                "{opt}"
            );
            assert!(stats.cmpxchgs >= 1 && stats.rmws >= 2, "{opt}: {stats:?}");
            if !static_locals {
                // Only the pass's own temporaries may still be accessed plainly.
                let plain_locals: Vec<String> = all_instructions(&module)
                    .into_iter()
                    .filter_map(|(f, i)| match i.get_opcode() {
                        InstructionOpcode::Load => Some((f, i, operand(i, 0))),
                        InstructionOpcode::Store => Some((f, i, operand(i, 1))),
                        _ => None,
                    })
                    .filter(|(_, _, ptr)| {
                        alloca_name(*ptr).is_some_and(|n| !n.starts_with("tso.tmp"))
                    })
                    .map(|(f, i, _)| format!("{f}: {i}"))
                    .collect();
                assert_eq!(plain_locals, Vec::<String>::new(), "{opt}");
            }
        }
    }
}
