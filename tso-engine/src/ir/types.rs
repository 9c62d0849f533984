//! Types, laid out with the module's data layout once at load time.

pub(crate) type TyId = u32;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    Void,
    Int(u32),
    Ptr,
    F32,
    F64,
    /// Field byte offsets and types; `size` is the ABI allocation size.
    Struct {
        fields: Box<[(u64, TyId)]>,
        size: u64,
    },
    Array {
        elem: TyId,
        len: u64,
        stride: u64,
    },
    Vector {
        elem: TyId,
        len: u32,
    },
    /// A type the interpreter cannot hold values of (x86_fp80, label, metadata, ...).
    Other(String),
}

#[derive(Debug, Default)]
pub(crate) struct TypeTable {
    tys: Vec<Ty>,
    sizes: Vec<u64>,
    alloc_sizes: Vec<u64>,
    index: std::collections::HashMap<Ty, TyId>,
}

impl TypeTable {
    pub(crate) fn intern(&mut self, ty: Ty, size: u64) -> TyId {
        if let Some(&id) = self.index.get(&ty) {
            return id;
        }
        let id = self.tys.len() as TyId;
        self.tys.push(ty.clone());
        self.sizes.push(size);
        self.index.insert(ty, id);
        id
    }
    #[inline]
    pub(crate) fn get(&self, id: TyId) -> &Ty {
        &self.tys[id as usize]
    }
    /// Bytes a load or store of this type touches.
    #[inline]
    pub(crate) fn size(&self, id: TyId) -> u64 {
        self.sizes[id as usize]
    }
    pub(crate) fn int_bits(&self, id: TyId) -> u32 {
        match self.get(id) {
            Ty::Int(b) => *b,
            Ty::Ptr => 64,
            Ty::F32 => 32,
            Ty::F64 => 64,
            Ty::Vector { elem, .. } => self.int_bits(*elem),
            _ => 64,
        }
    }
    /// The element type for vectors, the type itself otherwise (ops apply lane-wise).
    pub(crate) fn scalar(&self, id: TyId) -> TyId {
        match self.get(id) {
            Ty::Vector { elem, .. } => *elem,
            _ => id,
        }
    }
    pub(crate) fn name(&self, id: TyId) -> String {
        match self.get(id) {
            Ty::Void => "void".into(),
            Ty::Int(b) => format!("i{b}"),
            Ty::Ptr => "ptr".into(),
            Ty::F32 => "float".into(),
            Ty::F64 => "double".into(),
            Ty::Struct { .. } => "struct".into(),
            Ty::Array { elem, len, .. } => format!("[{len} x {}]", self.name(*elem)),
            Ty::Vector { elem, len } => format!("<{len} x {}>", self.name(*elem)),
            Ty::Other(s) => s.clone(),
        }
    }
}

impl TypeTable {
    /// Allocation size: the store size rounded up to the type's natural alignment for
    /// scalars; aggregates already carry their ABI size. Used to scale GEP indices.
    pub(crate) fn size_alloc(&self, id: TyId) -> u64 {
        self.alloc_sizes
            .get(id as usize)
            .copied()
            .unwrap_or_else(|| self.size(id))
    }
    pub(crate) fn set_alloc_size(&mut self, id: TyId, size: u64) {
        if self.alloc_sizes.len() <= id as usize {
            self.alloc_sizes.resize(id as usize + 1, 0);
        }
        self.alloc_sizes[id as usize] = size;
    }
}
