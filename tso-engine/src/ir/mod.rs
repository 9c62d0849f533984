//! The engine's own compact IR. Bitcode is translated into it once (see `loader`);
//! the interpreter never calls LLVM.

pub(crate) mod debug;
mod types;
pub(crate) use types::{Ty, TyId, TypeTable};

use crate::value::Val;

/// A virtual register: an index into the current frame's register file.
pub(crate) type Reg = u32;
/// Index of a function in [`Program::functions`].
pub(crate) type FuncId = u32;
/// Index of a block inside its function.
pub(crate) type BlockId = u32;
/// Index of a global in [`Program::globals`]; the global's object id is `GlobalId + 1`.
pub(crate) type GlobalId = u32;

/// Where an instruction came from in the user's source.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Location {
    /// The path as clang recorded it, joined with the compilation directory.
    pub file: std::sync::Arc<str>,
    pub line: u32,
    pub column: u32,
    /// The function the instruction belongs to in the source (after inlining: the
    /// inlined function), demangled.
    pub(crate) function: Option<std::sync::Arc<str>>,
    /// For inlined code: the location of the call it was inlined into.
    pub(crate) inlined_at: Option<u32>,
    /// In a header of the C or C++ library (see `debug::is_system_header`).
    pub(crate) system: bool,
}

impl Location {
    /// A position with nothing known beyond file, line and column (not inlined, not in
    /// a system header).
    pub fn new(file: impl Into<std::sync::Arc<str>>, line: u32, column: u32) -> Location {
        Location {
            file: file.into(),
            line,
            column,
            ..Location::default()
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Operand {
    Reg(Reg),
    Const(Val),
    /// LLVM `undef` or `poison`: evaluates to this zero value, with every bit
    /// undefined (see `crate::definedness`).
    Undef(Val),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntPred {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FloatPred {
    False,
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Uno,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    True,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CastOp {
    Trunc,
    ZExt,
    SExt,
    FpToUi,
    FpToSi,
    UiToFp,
    SiToFp,
    FpTrunc,
    FpExt,
    PtrToInt,
    IntToPtr,
    Bitcast,
    AddrSpace,
}

/// The C11 memory order of an access or fence (`NotAtomic`: a plain or volatile
/// access). Only data-race detection (`crate::race`) looks at it: the interpreter
/// itself runs every access sequentially consistently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemOrder {
    NotAtomic,
    Relaxed,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl MemOrder {
    pub fn is_atomic(self) -> bool {
        self != MemOrder::NotAtomic
    }
    pub fn acquires(self) -> bool {
        matches!(
            self,
            MemOrder::Acquire | MemOrder::AcqRel | MemOrder::SeqCst
        )
    }
    pub fn releases(self) -> bool {
        matches!(
            self,
            MemOrder::Release | MemOrder::AcqRel | MemOrder::SeqCst
        )
    }

    const ALL: [MemOrder; 6] = [
        MemOrder::NotAtomic,
        MemOrder::Relaxed,
        MemOrder::Acquire,
        MemOrder::Release,
        MemOrder::AcqRel,
        MemOrder::SeqCst,
    ];

    /// The order as a number, for a memory model's natives to get in an argument
    /// (`race::screen::ProgramAccesses`).
    pub fn code(self) -> u32 {
        MemOrder::ALL.iter().position(|&o| o == self).unwrap_or(0) as u32
    }

    /// The order of `code` (`MemOrder::code`); None for no order's.
    pub fn from_code(code: u64) -> Option<MemOrder> {
        MemOrder::ALL.get(usize::try_from(code).ok()?).copied()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RmwOp {
    Xchg,
    Add,
    Sub,
    And,
    Nand,
    Or,
    Xor,
    Max,
    Min,
    UMax,
    UMin,
    FAdd,
    FSub,
    FMax,
    FMin,
    UIncWrap,
    UDecWrap,
}

/// LLVM intrinsics the interpreter implements directly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Intrinsic {
    Memcpy,
    Memmove,
    Memset,
    /// lifetime, dbg, assume, expect, experimental.noalias.scope.decl, ...: no effect
    /// (expect returns its first argument).
    NoOp,
    Expect,
    UMin,
    UMax,
    SMin,
    SMax,
    Abs,
    Ctpop,
    Ctlz,
    Cttz,
    Bswap,
    Bitreverse,
    Fshl,
    Fshr,
    SAddO,
    UAddO,
    SSubO,
    USubO,
    SMulO,
    UMulO,
    SAddSat,
    UAddSat,
    SSubSat,
    USubSat,
    SShlSat,
    UShlSat,
    StackSave,
    StackRestore,
    Trap,
    VaStart,
    VaEnd,
    VaCopy,
    ThreadLocalAddress,
    Fabs,
    Sqrt,
    Floor,
    Ceil,
    Trunc,
    Round,
    Rint,
    Copysign,
    FMinNum,
    FMaxNum,
    Fma,
    FMulAdd,
    VecReduceAdd,
    VecReduceMul,
    VecReduceAnd,
    VecReduceOr,
    VecReduceXor,
    VecReduceUMax,
    VecReduceUMin,
    VecReduceSMax,
    VecReduceSMin,
    ObjectSize,
    IsConstant,
    IsFpClass,
}

#[derive(Clone, Debug)]
pub(crate) enum Callee {
    Direct(FuncId),
    Indirect(Operand),
    Intrinsic(Intrinsic),
    /// `asm "mfence"` and the empty compiler barrier: SC no-ops.
    AsmFence,
}

#[derive(Clone, Debug)]
pub(crate) enum Inst {
    Bin {
        dst: Reg,
        op: BinOp,
        ty: TyId,
        a: Operand,
        b: Operand,
    },
    FNeg {
        dst: Reg,
        ty: TyId,
        a: Operand,
    },
    ICmp {
        dst: Reg,
        pred: IntPred,
        ty: TyId,
        a: Operand,
        b: Operand,
    },
    FCmp {
        dst: Reg,
        pred: FloatPred,
        ty: TyId,
        a: Operand,
        b: Operand,
    },
    Select {
        dst: Reg,
        cond: Operand,
        a: Operand,
        b: Operand,
    },
    Cast {
        dst: Reg,
        op: CastOp,
        from: TyId,
        to: TyId,
        a: Operand,
    },
    /// base + Σ index·scale + offset, all in bytes.
    Gep {
        dst: Reg,
        base: Operand,
        offset: i64,
        indices: Box<[(Operand, i64, TyId)]>,
    },
    /// getelementptr on a vector of pointers is rare; not supported.
    Alloca {
        dst: Reg,
        elem_size: u64,
        count: Operand,
        /// The source variable living here (index into `DebugInfo::locals`).
        var: Option<u32>,
        /// Its address may leave the frame's registers (`escape`): unless it does, no
        /// other thread can ever reach the slot.
        escapes: bool,
    },
    Load {
        dst: Reg,
        ty: TyId,
        ptr: Operand,
        order: MemOrder,
    },
    Store {
        ty: TyId,
        val: Operand,
        ptr: Operand,
        order: MemOrder,
    },
    Fence {
        order: MemOrder,
    },
    CmpXchg {
        dst: Reg,
        ty: TyId,
        ptr: Operand,
        expected: Operand,
        new: Operand,
        /// The success ordering (what a successful exchange synchronises as).
        order: MemOrder,
    },
    AtomicRmw {
        dst: Reg,
        op: RmwOp,
        ty: TyId,
        ptr: Operand,
        val: Operand,
        order: MemOrder,
    },
    ExtractValue {
        dst: Reg,
        agg: Operand,
        indices: Box<[u32]>,
    },
    InsertValue {
        dst: Reg,
        agg: Operand,
        val: Operand,
        indices: Box<[u32]>,
    },
    ExtractElement {
        dst: Reg,
        vec: Operand,
        idx: Operand,
    },
    InsertElement {
        dst: Reg,
        vec: Operand,
        val: Operand,
        idx: Operand,
    },
    ShuffleVector {
        dst: Reg,
        a: Operand,
        b: Operand,
        mask: Box<[i32]>,
    },
    Freeze {
        dst: Reg,
        a: Operand,
    },
    Call {
        dst: Option<Reg>,
        callee: Callee,
        args: Box<[Operand]>,
        ret_ty: TyId,
        abi: Option<Box<CallAbi>>,
    },
    Br {
        target: BlockId,
    },
    CondBr {
        cond: Operand,
        then_bb: BlockId,
        else_bb: BlockId,
    },
    Switch {
        val: Operand,
        ty: TyId,
        cases: Box<[(u128, BlockId)]>,
        default: BlockId,
    },
    Ret {
        val: Option<Operand>,
    },
    Unreachable,
    /// A construct the loader could not translate; an error verdict if it is reached.
    Unsupported {
        what: String,
    },
}

impl Inst {
    /// `insertvalue`, `insertelement`, `shufflevector`: built from `poison` so often
    /// that definedness looks at them always instead of marking their functions.
    #[inline]
    pub fn builds_aggregate(&self) -> bool {
        matches!(
            self,
            Inst::InsertValue { .. } | Inst::InsertElement { .. } | Inst::ShuffleVector { .. }
        )
    }
}

/// How a call passes arguments beyond plain values; only present when it matters.
#[derive(Clone, Debug, Default)]
pub(crate) struct CallAbi {
    /// Arguments passed `byval`: (index, size). The callee gets a pointer to a copy.
    pub byval: Box<[(u32, u64)]>,
    /// Argument types, for calls to variadic functions (to lay out the va_arg area).
    pub arg_tys: Box<[TyId]>,
}

/// φ-nodes of a block: evaluated together on entry, from the predecessor's values.
#[derive(Clone, Debug)]
pub(crate) struct Phi {
    pub dst: Reg,
    pub(crate) incoming: Box<[(BlockId, Operand)]>,
}

#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub phis: Box<[Phi]>,
    pub insts: Box<[Inst]>,
    pub locs: Box<[Option<u32>]>,
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// Registers: parameters come first (0..params).
    pub num_regs: u32,
    pub params: u32,
    pub variadic: bool,
    pub param_tys: Box<[TyId]>,
    /// None for declarations: such calls go to natives.
    pub(crate) body: Option<Body>,
}

#[derive(Clone, Debug)]
pub(crate) struct Body {
    pub blocks: Box<[Block]>,
    /// Registers live at the start of each instruction, for instructions where a state
    /// may be taken (see `liveness`): serialising only live registers keeps states canonical.
    pub live: crate::ir::liveness::Liveness,
    /// Frame-private slots whose contents are dead at each stop point (see `slots`).
    pub dead_slots: crate::ir::slots::DeadSlots,
    /// Some operand is `undef`/`poison` (`Operand::Undef`): definedness must look at
    /// every instruction even while no register of a frame is undefined. Operands of
    /// instructions that build aggregates (`Inst::builds_aggregate`, often from
    /// `poison`) do not count: those instructions are always looked at.
    pub has_undef_operands: bool,
}

pub(crate) mod awaits;
pub(crate) mod escape;
pub(crate) mod liveness;
pub(crate) mod slots;

#[derive(Clone, Debug)]
pub(crate) struct Global {
    pub name: String,
    pub size: u64,
    pub(crate) constant: bool,
    /// Initial bytes and the offsets at which a pointer with provenance starts
    /// (global ids are fixed, so initial pointers are plain numbers).
    pub init: Box<[u8]>,
    pub init_ptrs: Box<[u32]>,
}

/// A whole translated module (`Default`: the empty one, for tests).
#[derive(Debug, Default)]
pub struct Program {
    pub(crate) types: TypeTable,
    pub(crate) functions: Vec<Function>,
    pub(crate) globals: Vec<Global>,
    pub locations: Vec<Location>,
    pub(crate) function_index: std::collections::HashMap<String, FuncId>,
    /// `llvm.global_ctors`, in priority order.
    pub(crate) constructors: Vec<FuncId>,
    /// Source names of variables and types, from the module's debug info.
    pub(crate) debug: debug::DebugInfo,
}

impl Program {
    pub(crate) fn function(&self, name: &str) -> Option<FuncId> {
        self.function_index.get(name).copied()
    }
    pub fn location(&self, id: Option<u32>) -> Option<&Location> {
        id.and_then(|i| self.locations.get(i as usize))
    }
}

/// Function pointers live in a reserved part of the object-id space, never renumbered.
pub(crate) const FUNCTION_OBJECT_BASE: u32 = 0xF000_0000;
