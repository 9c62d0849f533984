//! Shared helpers of the instrumentation tests: compile fixtures with clang-19 at test
//! time, load them with inkwell, and inspect the instrumented IR.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use inkwell::context::Context;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::values::{AsValueRef, FunctionValue, InstructionOpcode, InstructionValue};

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn out_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("instrument-fixtures");
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Compile a C or C++ fixture to bitcode (`-g`, value names kept) at `opt` (e.g. "-O0").
pub fn compile(name: &str, opt: &str) -> PathBuf {
    let cxx = name.ends_with(".cpp");
    let out = out_dir().join(format!("{name}{opt}.bc"));
    let mut cmd = Command::new(if cxx { "clang++-19" } else { "clang-19" });
    if cxx {
        cmd.args(["-std=c++17", "-fno-exceptions"]);
    }
    cmd.args([
        "-c",
        "-emit-llvm",
        "-g",
        opt,
        "-fno-discard-value-names",
        "-o",
    ])
    .arg(&out)
    .arg(fixture(name));
    let status = cmd.status().expect("clang-19/clang++-19 must be installed");
    assert!(status.success(), "compiling {name} {opt} failed");
    out
}

pub fn load<'ctx>(ctx: &'ctx Context, bitcode: &Path) -> Module<'ctx> {
    Module::parse_bitcode_from_path(bitcode, ctx).expect("load bitcode")
}

pub fn load_fixture<'ctx>(ctx: &'ctx Context, name: &str, opt: &str) -> Module<'ctx> {
    load(ctx, &compile(name, opt))
}

/// Parse a textual `.ll` fixture.
pub fn parse_ll<'ctx>(ctx: &'ctx Context, name: &str) -> Module<'ctx> {
    let buffer = MemoryBuffer::create_from_file(&fixture(name)).expect("read .ll fixture");
    ctx.create_module_from_ir(buffer)
        .expect("parse .ll fixture")
}

pub fn function<'ctx>(module: &Module<'ctx>, name: &str) -> FunctionValue<'ctx> {
    module
        .get_function(name)
        .unwrap_or_else(|| panic!("no function {name}"))
}

pub fn instructions<'ctx>(f: FunctionValue<'ctx>) -> Vec<InstructionValue<'ctx>> {
    f.get_basic_block_iter()
        .flat_map(|bb| bb.get_instructions())
        .collect()
}

pub fn all_instructions<'ctx>(module: &Module<'ctx>) -> Vec<(String, InstructionValue<'ctx>)> {
    module
        .get_functions()
        .flat_map(|f| {
            let name = f.get_name().to_string_lossy().into_owned();
            instructions(f).into_iter().map(move |i| (name.clone(), i))
        })
        .collect()
}

/// Name of the directly called function of a call instruction.
pub fn callee_name(inst: InstructionValue<'_>) -> Option<String> {
    if !matches!(
        inst.get_opcode(),
        InstructionOpcode::Call | InstructionOpcode::Invoke
    ) {
        return None;
    }
    // SAFETY: `inst` is a live call.
    unsafe {
        let callee = c::LLVMGetCalledValue(inst.as_value_ref());
        if callee.is_null() || c::LLVMIsAFunction(callee).is_null() {
            return None;
        }
        Some(value_name(callee))
    }
}

pub fn value_name(value: inkwell::llvm_sys::prelude::LLVMValueRef) -> String {
    let mut len = 0usize;
    // SAFETY: `value` is live; the name is copied at once.
    unsafe {
        let ptr = c::LLVMGetValueName2(value, &mut len);
        String::from_utf8_lossy(std::slice::from_raw_parts(ptr as *const u8, len)).into_owned()
    }
}

/// Calls in `f` to functions named `name` (exact).
pub fn calls_to<'ctx>(f: FunctionValue<'ctx>, name: &str) -> Vec<InstructionValue<'ctx>> {
    instructions(f)
        .into_iter()
        .filter(|i| callee_name(*i).as_deref() == Some(name))
        .collect()
}

/// Calls anywhere in the module to functions whose name starts with `prefix`.
pub fn module_calls<'ctx>(
    module: &Module<'ctx>,
    prefix: &str,
) -> Vec<(String, InstructionValue<'ctx>)> {
    all_instructions(module)
        .into_iter()
        .filter(|(_, i)| callee_name(*i).is_some_and(|n| n.starts_with(prefix)))
        .collect()
}

/// Raw operand `i`.
pub fn operand(inst: InstructionValue<'_>, i: u32) -> inkwell::llvm_sys::prelude::LLVMValueRef {
    // SAFETY: callers pass a valid index.
    unsafe { c::LLVMGetOperand(inst.as_value_ref(), i) }
}

/// Integer value of a constant operand.
pub fn const_operand(inst: InstructionValue<'_>, i: u32) -> Option<u64> {
    let v = operand(inst, i);
    // SAFETY: checked to be a ConstantInt before reading.
    unsafe { (!c::LLVMIsAConstantInt(v).is_null()).then(|| c::LLVMConstIntGetZExtValue(v)) }
}

/// Opcode of the instruction defining operand `i`, if it is an instruction.
pub fn operand_opcode(inst: InstructionValue<'_>, i: u32) -> Option<InstructionOpcode> {
    let v = operand(inst, i);
    // SAFETY: checked to be an instruction first.
    unsafe { (!c::LLVMIsAInstruction(v).is_null()).then(|| InstructionValue::new(v).get_opcode()) }
}

/// Whether `ptr` is (a GEP chain into) an alloca, or a constant global.
pub fn is_private_or_constant(mut ptr: inkwell::llvm_sys::prelude::LLVMValueRef) -> bool {
    // SAFETY: walking operands of live values.
    unsafe {
        loop {
            if !c::LLVMIsAAllocaInst(ptr).is_null() {
                return true;
            }
            if !c::LLVMIsAGetElementPtrInst(ptr).is_null() || !c::LLVMIsAConstantExpr(ptr).is_null()
            {
                ptr = c::LLVMGetOperand(ptr, 0);
                continue;
            }
            return !c::LLVMIsAGlobalVariable(ptr).is_null() && c::LLVMIsGlobalConstant(ptr) != 0;
        }
    }
}

/// The base alloca name of an address (through GEPs), if any.
pub fn alloca_name(mut ptr: inkwell::llvm_sys::prelude::LLVMValueRef) -> Option<String> {
    // SAFETY: walking operands of live values.
    unsafe {
        while !c::LLVMIsAGetElementPtrInst(ptr).is_null() {
            ptr = c::LLVMGetOperand(ptr, 0);
        }
        (!c::LLVMIsAAllocaInst(ptr).is_null()).then(|| value_name(ptr))
    }
}

/// Loads and stores that still access memory another thread could reach.
pub fn shared_plain_accesses(module: &Module<'_>) -> Vec<String> {
    all_instructions(module)
        .into_iter()
        .filter_map(|(f, i)| {
            let ptr = match i.get_opcode() {
                InstructionOpcode::Load => operand(i, 0),
                InstructionOpcode::Store => operand(i, 1),
                _ => return None,
            };
            (!is_private_or_constant(ptr)).then(|| format!("{f}: {i}"))
        })
        .collect()
}

/// Line of the debug location of `inst`.
pub fn debug_line(inst: InstructionValue<'_>) -> Option<u32> {
    // SAFETY: reading metadata of a live instruction.
    unsafe {
        let loc = di::LLVMInstructionGetDebugLoc(inst.as_value_ref());
        (!loc.is_null()).then(|| di::LLVMDILocationGetLine(loc))
    }
}

/// 1-based line of the fixture line containing `MARK:<marker>`.
pub fn marker_line(fixture_name: &str, marker: &str) -> u32 {
    let text = std::fs::read_to_string(fixture(fixture_name)).expect("read fixture");
    let needle = format!("MARK:{marker}");
    let index = text
        .lines()
        .position(|l| l.contains(&needle))
        .expect("marker present");
    index as u32 + 1
}

pub fn prev_call(inst: InstructionValue<'_>) -> Option<String> {
    inst.get_previous_instruction().and_then(callee_name)
}

pub fn next_call(inst: InstructionValue<'_>) -> Option<String> {
    inst.get_next_instruction().and_then(callee_name)
}

/// The workspace root, where the shared test programs live.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Compile a test program of the workspace (`source`: absolute, or relative to the
/// workspace root) to bitcode at -O1 with `tso.h` on the include path, as the CLI does.
pub fn compile_program(source: &Path) -> PathBuf {
    let root = workspace_root();
    let source = root.join(source);
    // Named after the path below the root, so programs with one file name stay apart.
    let relative = source.strip_prefix(&root).unwrap_or(&source);
    let name = relative.to_string_lossy().replace('/', "_");
    let out = out_dir().join(format!("{name}.bc"));
    let status = Command::new("clang-19")
        .args(["-c", "-emit-llvm", "-g", "-O1", "-o"])
        .arg(&out)
        .arg(&source)
        .arg("-I")
        .arg(root.join("test-support/include"))
        .status()
        .expect("clang-19 must be installed");
    assert!(status.success(), "compiling {} failed", source.display());
    out
}

/// `bitcode` instrumented with the default options and translated for the engine, with
/// the standard natives plus the TSO runtime's under `runtime`.
pub fn instrumented_program(
    bitcode: &Path,
    runtime: &tso_runtime::runtime::RuntimeOptions,
) -> (tso_engine::Program, tso_engine::Natives) {
    let context = Context::create();
    let module = tso_engine::parse_module(&context, bitcode).expect("load");
    tso_runtime::instrument::instrument_module(
        &module,
        &tso_runtime::instrument::InstrumentOptions::default(),
    )
    .expect("instrument");
    let mut natives = tso_engine::Natives::standard();
    tso_runtime::runtime::register(&mut natives, runtime);
    (tso_engine::translate(&module), natives)
}
