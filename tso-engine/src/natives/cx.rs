//! What a native sees of the machine while it runs.

use super::{arg, Access, Chooser, Pointee};
use crate::error::{ErrorKind, Failure};
use crate::ir::{MemOrder, Program};
use crate::memory::{Fragment, ObjId, ObjKind, Object, MAX_OBJECT_SIZE};
use crate::race::MessageEvent;
use crate::state::{State, ThreadId};
use crate::value::{make_ptr, ptr_parts, Val};
use std::cell::RefCell;

/// How natives start threads: (state, start routine, arguments) → new thread id.
pub(crate) type SpawnFn<'a> = dyn Fn(&mut State, u64, Vec<Val>) -> Result<ThreadId, Failure> + 'a;

/// Where the machine shows a step of a thread at a location: (program, state, thread,
/// location) → the innermost location in the user's own files (`interp::attribute`).
pub(crate) type UserLocationFn = fn(&Program, &State, ThreadId, Option<u32>) -> Option<u32>;

pub struct NativeCx<'a> {
    pub state: &'a mut State,
    pub program: &'a Program,
    pub tid: ThreadId,
    /// Name of the function being modelled (for messages).
    pub(crate) native: &'static str,
    pub(crate) chooser: &'a mut dyn Chooser,
    /// Human-readable notes for the counterexample trace; None when not tracing.
    pub(crate) notes: Option<&'a mut Vec<String>>,
    pub(crate) spawn: &'a SpawnFn<'a>,
    pub(crate) user_location_of: UserLocationFn,
    pub(crate) max_memory: u64,
    pub(crate) spurious_wakeups: bool,
    pub(crate) fence_hook: Option<std::sync::Arc<super::Native>>,
    pub(crate) evict_hook: Option<std::sync::Arc<super::Native>>,
    pub(crate) sync_hook: Option<super::SyncHook>,
    /// Uninitialised values are tracked (`--no-definedness` switches it off).
    pub(crate) definedness: bool,
    /// The shadows of the arguments that hold undefined bits (see
    /// `crate::definedness`), for natives that carry them (`Natives::carry_undefined`).
    pub(crate) arg_undef: Vec<Option<crate::definedness::Undef>>,
    /// The result's undefined bits and their origin, set by the native.
    pub(crate) ret_undef: Option<crate::definedness::Undef>,
    /// The program memory the native read and wrote through this API, for race
    /// detection: recorded as plain accesses of the calling thread when the call
    /// returns (`None`: not recorded, because races are not tracked or the native's
    /// accesses are not data accesses, `Native::data_accesses`).
    pub(crate) data_accesses: Option<RefCell<Vec<DataAccess>>>,
    /// How this native sees shared memory, if not directly (a library function under
    /// TSO, see `DataView`). Taken while it runs, so the view's own memory accesses go
    /// straight to memory.
    pub(crate) data_view: Option<std::sync::Arc<dyn super::DataView>>,
    /// What the data view gave this native, by address: its definedness is what
    /// `require_defined` must judge, not the bytes in memory.
    pub(crate) viewed: Vec<(u64, Fragment)>,
    /// The races this call's deallocations found (`dealloc`), for the interpreter to
    /// report when the call returns (the native cannot: reporting is the machine's).
    pub(crate) dealloc_races: Vec<crate::race::Race>,
    /// The races the program's accesses this call stands for found
    /// (`race_access`): `(race, pointer, size)`, reported by the interpreter when the
    /// call returns.
    pub(crate) program_races: Vec<(crate::race::Race, u64, u64)>,
}

/// Source location id of what thread `tid` executes.
fn location_in(program: &Program, st: &State, tid: ThreadId) -> Option<u32> {
    let f = st.thread(tid).frames.last()?;
    let body = program.functions[f.func as usize].body.as_ref()?;
    body.blocks
        .get(f.block as usize)?
        .locs
        .get(f.ip as usize)
        .copied()
        .flatten()
}

/// [`NativeCx::user_location`] of thread `tid` in `st`.
fn user_location_in(
    program: &Program,
    st: &State,
    tid: ThreadId,
    user_location_of: UserLocationFn,
) -> Option<u32> {
    let here = location_in(program, st, tid);
    match here.and_then(|l| program.locations.get(l as usize)) {
        Some(l) if l.system => user_location_of(program, st, tid, here),
        _ => here,
    }
}

/// A native's plain access to program memory: `len` bytes at `ptr`, written or read.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DataAccess {
    pub ptr: u64,
    pub len: u64,
    pub write: bool,
}

impl<'a> NativeCx<'a> {
    /// A nondeterministic value in 0..n the program asked for (every answer is explored).
    pub(crate) fn choose(&mut self, n: usize) -> usize {
        self.choose_as(n, super::ChoiceKind::User)
    }

    /// A nondeterministic number in 0..n of the given kind (every answer is explored).
    pub fn choose_as(&mut self, n: usize, kind: super::ChoiceKind) -> usize {
        if n <= 1 {
            0
        } else {
            self.chooser.choose(n, kind)
        }
    }

    /// Which delayed stores to flush: option `i` leaves `delayed[i]` stores delayed
    /// (every option is explored; the count only ranks counterexamples).
    pub fn choose_flush(&mut self, delayed: &[u32]) -> usize {
        let c = self.choose_as(delayed.len(), super::ChoiceKind::BufferFlush);
        if let Some(&n) = delayed.get(c) {
            self.chooser.delayed(n);
        }
        c
    }

    /// May condition waits return without a signal (`--no-spurious-wakeups` clears it)?
    pub(crate) fn spurious_wakeups(&self) -> bool {
        self.spurious_wakeups
    }

    pub fn tracing(&self) -> bool {
        self.notes.is_some()
    }

    /// Add a line to the counterexample (only built when tracing).
    pub fn note(&mut self, f: impl FnOnce(&State, &Program) -> String) {
        if self.notes.is_some() {
            let s = f(self.state, self.program);
            if s.is_empty() {
                return;
            }
            if let Some(n) = self.notes.as_mut() {
                n.push(s);
            }
        }
    }

    /// Source location id of the call being executed (for store-buffer origins).
    /// The calling instruction's location, or for library code the user's line that
    /// led to it (what a person wants to see as the origin of a buffered store).
    pub fn user_location(&self) -> Option<u32> {
        user_location_in(self.program, self.state, self.tid, self.user_location_of)
    }

    pub fn location(&self) -> Option<u32> {
        location_in(self.program, self.state, self.tid)
    }

    /// A full memory barrier for the calling thread: what it wrote reaches memory
    /// (a no-op under SC, where nothing is buffered).
    pub(crate) fn fence(&mut self) -> Result<(), Failure> {
        if let Some(hook) = self.fence_hook.clone() {
            (hook.call)(self, &[])?;
        }
        Ok(())
    }

    /// The object `ptr` points to is about to die outside a normal return: forget the
    /// calling thread's buffered stores to it (a no-op under SC).
    pub(crate) fn evict(&mut self, ptr: u64) -> Result<(), Failure> {
        if let Some(hook) = self.evict_hook.clone() {
            (hook.call)(self, &[Val::Ptr(ptr)])?;
        }
        Ok(())
    }

    pub(crate) fn phase(&self) -> u32 {
        self.state.thread(self.tid).phase
    }

    pub(crate) fn set_phase(&mut self, p: u32) {
        self.state.thread_mut(self.tid).phase = p;
    }

    pub(crate) fn callback_result(&mut self) -> Option<Val> {
        self.state.thread_mut(self.tid).callback_result.take()
    }

    // ---- definedness ----

    /// Whether uninitialised values are tracked in this run.
    pub fn definedness(&self) -> bool {
        self.definedness
    }

    /// The undefined bits of argument `i` (a shadow shaped like the value), if any.
    /// Only arguments the native declared with `Natives::carry_undefined` can have them.
    pub fn arg_undefined(&self, i: usize) -> Option<&Val> {
        self.arg_undefined_with_origin(i).map(|u| &u.shadow)
    }

    /// As `arg_undefined`, with where the undefined bits came from.
    pub(crate) fn arg_undefined_with_origin(&self, i: usize) -> Option<&crate::definedness::Undef> {
        self.arg_undef.get(i).and_then(|s| s.as_ref())
    }

    /// The call's result has the undefined bits `shadow`, which came from the memory
    /// at `from` (named in the error if they are used).
    pub fn set_result_undefined(&mut self, shadow: Val, from: u64) {
        let origin = self
            .state
            .memory
            .object_of(from)
            .and_then(|(_, o)| crate::definedness::Origin::of_range(o, ptr_parts(from).1, 1));
        self.ret_undef = Some(crate::definedness::Undef { shadow, origin });
    }

    /// Refuse bytes `[ptr, ptr+len)` if any bit of them was never written: a library
    /// function inspects them (compares, prints, parses). For functions that look at a
    /// prefix only (memcmp up to the first difference), with `read_bytes_unchecked`.
    pub fn require_defined(&self, ptr: u64, len: u64) -> Result<(), Failure> {
        if !self.definedness || len == 0 {
            return Ok(());
        }
        let seen = self.viewed.iter().find(|(at, f)| {
            ptr_parts(*at).0 == ptr_parts(ptr).0
                && *at <= ptr
                && ptr + len <= *at + f.data.len() as u64
        });
        if let Some((at, f)) = seen {
            let from = (ptr - at) as usize;
            let undefined = f
                .undef
                .get(from..from + len as usize)
                .is_some_and(|u| u.iter().any(|&b| b != 0));
            if undefined {
                return Err(crate::definedness::error(
                    &format!(
                        "`{}` reads bytes that it inspects; their value",
                        self.native
                    ),
                    None,
                ));
            }
            return Ok(());
        }
        let Some((_, o)) = self.state.memory.object_of(ptr) else {
            return Ok(());
        };
        let off = ptr_parts(ptr).1;
        if off as u64 + len > o.size() {
            return Ok(());
        }
        if o.undef_in(off, len as u32).is_some() {
            let origin = crate::definedness::Origin::of_range(o, off, len as u32)
                .and_then(|x| x.describe(self.program));
            return Err(crate::definedness::error(
                &format!(
                    "`{}` reads bytes that it inspects; their value",
                    self.native
                ),
                origin.as_deref(),
            ));
        }
        Ok(())
    }

    // ---- memory ----

    /// Note a data access the native made (see `data_accesses`).
    fn accessed(&self, ptr: u64, len: u64, write: bool) {
        if let Some(list) = &self.data_accesses {
            if len > 0 {
                list.borrow_mut().push(DataAccess { ptr, len, write });
            }
        }
    }

    /// Check an access of `len` bytes at `ptr` exactly as a program load or store is
    /// checked. Accessing nothing (`len == 0`) checks nothing, as in the real functions.
    pub fn check(&self, ptr: u64, len: u64, access: Access) -> Result<(), Failure> {
        if len == 0 {
            return Ok(());
        }
        self.state
            .memory
            .check(ptr, len, access == Access::Write)
            .map(|_| ())
    }

    /// Pointer argument `i`, checked on entry: it must point to a whole `pointee`.
    pub(crate) fn ptr_arg(&self, a: &[Val], i: usize, pointee: Pointee) -> Result<u64, Failure> {
        let p = arg(a, i)?;
        self.check(p, pointee.size, pointee.access).map_err(|f| {
            Failure::new(
                f.kind,
                format!("{} (argument {}): {}", self.native, i + 1, f.message),
            )
        })?;
        Ok(p)
    }

    /// Like [`NativeCx::ptr_arg`] for a parameter that may be NULL (returns 0 then).
    pub(crate) fn opt_ptr_arg(
        &self,
        a: &[Val],
        i: usize,
        pointee: Pointee,
    ) -> Result<u64, Failure> {
        if arg(a, i)? == 0 {
            return Ok(0);
        }
        self.ptr_arg(a, i, pointee)
    }

    /// `len` (> 0) bytes at `ptr` through the data view, if this native has one
    /// (None: read memory directly). Unshared memory too: the thread's own buffered
    /// stores may hold its newest bytes, and the view alone knows whether they do (the
    /// "+d" bypass is the view's to take). What it gives is remembered for
    /// `require_defined`.
    fn viewed_read(&mut self, ptr: u64, len: u64) -> Result<Option<Fragment>, Failure> {
        let Some(view) = self.data_view.take() else {
            return Ok(None);
        };
        let read = view.read(self, ptr, len).map(Some);
        self.data_view = Some(view);
        if let Ok(Some(f)) = &read {
            self.viewed.push((ptr, f.clone()));
        }
        read
    }

    /// `len` (> 0) bytes at `ptr`, as this native sees them.
    fn fragment_at(&mut self, ptr: u64, len: u64) -> Result<Fragment, Failure> {
        match self.viewed_read(ptr, len)? {
            Some(f) => Ok(f),
            None => self.state.memory.read_fragment(ptr, len),
        }
    }

    pub(crate) fn read_int(&mut self, ptr: u64, size: u64) -> Result<u64, Failure> {
        let f = self.fragment_at(ptr, size)?;
        let mut buf = [0u8; 8];
        buf[..size as usize].copy_from_slice(&f.data[..size as usize]);
        self.accessed(ptr, size, false);
        Ok(u64::from_le_bytes(buf))
    }

    pub(crate) fn write_int(&mut self, ptr: u64, size: u64, v: u64) -> Result<(), Failure> {
        let b = v.to_le_bytes();
        self.write_fragment(ptr, &Fragment::from_bytes(b[..size as usize].to_vec()))
    }

    pub(crate) fn read_ptr(&mut self, ptr: u64) -> Result<Val, Failure> {
        let frag = self.read_fragment(ptr, 8)?;
        let v = u64::from_le_bytes(frag.data[..8].try_into().unwrap_or([0; 8]));
        Ok(if frag.ptrs.contains(&0) {
            Val::Ptr(v)
        } else {
            Val::Int(v as u128)
        })
    }

    pub(crate) fn write_ptr(&mut self, ptr: u64, v: &Val) -> Result<(), Failure> {
        self.write_ptr_undefined(ptr, v, None)
    }

    /// Write a pointer-sized value that has the undefined bits `shadow`.
    pub(crate) fn write_ptr_undefined(
        &mut self,
        ptr: u64,
        v: &Val,
        shadow: Option<&Val>,
    ) -> Result<(), Failure> {
        let mut frag = Fragment::from_bytes(v.as_u64().to_le_bytes().to_vec());
        if matches!(v, Val::Ptr(_)) {
            frag.ptrs.push(0);
        }
        if let Some(bits) = shadow.map(|s| crate::definedness::smear(s) as u64) {
            if bits != 0 {
                frag.undef = bits.to_le_bytes().to_vec();
            }
        }
        self.write_fragment(ptr, &frag)
    }

    /// Read `len` bytes (none, and no check, when `len` is 0).
    pub fn read_fragment(&mut self, ptr: u64, len: u64) -> Result<Fragment, Failure> {
        if len == 0 {
            return Ok(Fragment::from_bytes(Vec::new()));
        }
        let frag = self.fragment_at(ptr, len)?;
        self.accessed(ptr, len, false);
        Ok(frag)
    }

    /// Write bytes; storing a pointer into shared memory shares its target. Writing
    /// nothing checks nothing. Through the data view, if any (a buffered store), to
    /// unshared memory too: written around the view, it could be overtaken by the
    /// thread's own older buffered stores to the same bytes.
    pub fn write_fragment(&mut self, ptr: u64, frag: &Fragment) -> Result<(), Failure> {
        if frag.data.is_empty() {
            return Ok(());
        }
        if let Some(view) = self.data_view.take() {
            let written = view.write(self, ptr, frag);
            self.data_view = Some(view);
            written?;
            // Later reads of these bytes go through the view again.
            self.viewed
                .retain(|(at, _)| ptr_parts(*at).0 != ptr_parts(ptr).0);
            self.accessed(ptr, frag.data.len() as u64, true);
            return Ok(());
        }
        self.state.memory.write_fragment(ptr, frag)?;
        self.accessed(ptr, frag.data.len() as u64, true);
        if !frag.ptrs.is_empty() && self.state.memory.is_shared(ptr) {
            for p in frag.pointers().collect::<Vec<_>>() {
                self.share(p);
            }
        }
        Ok(())
    }

    /// Read `len` bytes without requiring them defined; the caller checks the part it
    /// inspects with `require_defined`.
    pub(crate) fn read_bytes_unchecked(&mut self, ptr: u64, len: u64) -> Result<Vec<u8>, Failure> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let b = self.fragment_at(ptr, len)?.data;
        self.accessed(ptr, len, false);
        Ok(b)
    }

    /// Read `len` bytes the native inspects: every bit must be defined (none, and no
    /// check, when `len` is 0).
    pub(crate) fn read_bytes(&mut self, ptr: u64, len: u64) -> Result<Vec<u8>, Failure> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let b = self.fragment_at(ptr, len)?.data;
        self.require_defined(ptr, len)?;
        self.accessed(ptr, len, false);
        Ok(b)
    }

    /// A NUL-terminated string; its bytes and the NUL must be defined.
    pub(crate) fn read_c_string(&mut self, ptr: u64) -> Result<Vec<u8>, Failure> {
        let s = match self.viewed_string(ptr, u64::MAX)? {
            Some(s) => s,
            None => self.state.memory.read_c_string(ptr)?,
        };
        self.require_defined(ptr, s.len() as u64 + 1)?;
        self.accessed(ptr, s.len() as u64 + 1, false);
        Ok(s)
    }

    /// A string of at most `max` bytes; only the bytes read are checked.
    pub(crate) fn read_c_string_max(&mut self, ptr: u64, max: u64) -> Result<Vec<u8>, Failure> {
        if max == 0 {
            return Ok(Vec::new());
        }
        let s = match self.viewed_string(ptr, max)? {
            Some(s) => s,
            None => self.state.memory.read_c_string_max(ptr, max)?,
        };
        let read = (s.len() as u64 + 1).min(max);
        self.require_defined(ptr, read)?;
        self.accessed(ptr, read, false);
        Ok(s)
    }

    /// A string of at most `max` bytes read through the data view (None: no view).
    /// Read up to the end of the object or `max` at once, which is one load: reading
    /// bytes past the NUL constrains nothing a real `strlen` could not also have seen.
    fn viewed_string(&mut self, ptr: u64, max: u64) -> Result<Option<Vec<u8>>, Failure> {
        if self.data_view.is_none() {
            return Ok(None);
        }
        let (obj, off) = self.state.memory.check(ptr, 0, false)?;
        let size = self.state.memory.get(obj).map_or(0, |o| o.size());
        let rest = size.saturating_sub(off as u64).min(max);
        let data = if rest == 0 {
            Vec::new()
        } else {
            match self.viewed_read(ptr, rest)? {
                Some(f) => f.data,
                None => return Ok(None),
            }
        };
        crate::memory::c_string_in(&data, max).map(Some)
    }

    /// Is the object `ptr` points into reachable by more than one thread?
    pub fn is_shared(&self, ptr: u64) -> bool {
        self.state.memory.is_shared(ptr)
    }

    /// Make the object `ptr` points to (and all it reaches) shared.
    pub fn share(&mut self, ptr: u64) {
        let (obj, _) = ptr_parts(ptr);
        if self.state.memory.get(obj).is_some() {
            self.state.share(obj);
        }
    }

    pub(crate) fn object(&self, ptr: u64) -> Option<&Object> {
        self.state.memory.object_of(ptr).map(|(_, o)| o)
    }

    /// Allocate a zeroed heap block; None when it exceeds the memory limit.
    pub fn allocate(&mut self, size: u64, family: u8) -> Result<Option<u64>, Failure> {
        self.allocate_with(size, family, false)
    }

    /// Allocate a heap block whose bytes were never written (`malloc`, `new`): reading
    /// them before writing is an uninitialised use. The block remembers the caller's
    /// line, to say where such memory came from.
    pub fn allocate_uninit(&mut self, size: u64, family: u8) -> Result<Option<u64>, Failure> {
        self.allocate_with(size, family, self.definedness)
    }

    fn allocate_with(
        &mut self,
        size: u64,
        family: u8,
        uninit: bool,
    ) -> Result<Option<u64>, Failure> {
        if size > MAX_OBJECT_SIZE || size > self.max_memory {
            return Ok(None);
        }
        let mut obj = if uninit {
            let mut o = Object::new_undefined(size as usize, ObjKind::Heap);
            o.site = self.user_location();
            o
        } else {
            Object::new(size as usize, ObjKind::Heap)
        };
        obj.alloc_family = family;
        let id = self.state.memory.allocate(obj);
        if !uninit {
            // Zeroing the block is a write (calloc's zeros are data like any other).
            self.accessed(make_ptr(id, 0), size, true);
        }
        Ok(Some(make_ptr(id, 0)))
    }

    /// Release a heap block (free/delete). Reports invalid and double frees.
    pub(crate) fn release(&mut self, ptr: u64, family: u8) -> Result<(), Failure> {
        if ptr == 0 {
            return Ok(());
        }
        self.check_releasable(ptr, family)?;
        self.dealloc(ptr_parts(ptr).0);
        Ok(())
    }

    /// The object `obj` dies at this thread's hand (a release, or a stack frame a
    /// longjmp leaves): for race detection a plain write of all of it
    /// (`RaceState::dealloc`), whose race goes to `dealloc_races`.
    pub(crate) fn dealloc(&mut self, obj: ObjId) {
        if self.state.races.as_ref().is_some_and(|r| r.tracks(obj)) {
            let (tid, site) = (self.tid, self.user_location());
            if let Some(race) = self
                .state
                .races_mut()
                .and_then(|r| r.dealloc(tid, obj, site))
            {
                self.dealloc_races.push(race);
            }
        }
        if crate::race::screen::probing() {
            let section = self.state.atomic_owner == Some(self.tid);
            crate::race::screen::note_dealloc(&self.state.memory, self.tid, obj, section);
        }
        self.state.kill(obj);
    }

    /// Would releasing `ptr` (not NULL) with `family` be valid? The errors of `release`.
    pub(crate) fn check_releasable(&self, ptr: u64, family: u8) -> Result<(), Failure> {
        let (obj, off) = ptr_parts(ptr);
        if self.state.memory.is_shared(ptr) {
            // Whether it can be freed depends on what other threads did to it.
            self.footprint_object(obj, false);
        }
        let Some(o) = self.state.memory.get(obj) else {
            return Err(Failure::new(
                ErrorKind::InvalidFree,
                format!("free of a pointer that was never allocated ({ptr:#x})"),
            ));
        };
        if o.kind != ObjKind::Heap {
            return Err(Failure::new(
                ErrorKind::InvalidFree,
                "free of memory that is not on the heap (a global or a stack variable)",
            ));
        }
        if o.freed {
            return Err(Failure::new(ErrorKind::DoubleFree, "memory freed twice"));
        }
        if off != 0 {
            return Err(Failure::new(
                ErrorKind::InvalidFree,
                format!("free of a pointer into the middle of a block (offset {off})"),
            ));
        }
        if o.alloc_family != family {
            return Err(Failure::new(ErrorKind::InvalidFree, "memory released with the wrong function (malloc/free vs new/delete vs new[]/delete[])"));
        }
        Ok(())
    }

    pub(crate) fn print(&mut self, bytes: &[u8]) {
        self.state.print(bytes);
    }

    /// Start a thread running `func(args)`; returns its id. The new thread starts
    /// after all its creator did (for race detection, create→start).
    pub(crate) fn spawn(&mut self, func: u64, args: Vec<Val>) -> Result<ThreadId, Failure> {
        // The arguments become reachable by the new thread.
        for a in &args {
            let mut ps = Vec::new();
            a.for_each_pointer(&mut |p| ps.push(p));
            for p in ps {
                let obj = ptr_parts(p).0;
                if self.state.memory.get(obj).is_some() {
                    self.state.share(obj);
                }
            }
        }
        let child = (self.spawn)(self.state, func, args)?;
        let parent = self.tid;
        if let Some(r) = self.state.races_mut() {
            r.spawn(parent, child);
        }
        self.sync(super::SyncEvent::Spawn(child));
        Ok(child)
    }

    /// Partial-order reduction: this call read (or wrote) state of object `obj` kept
    /// outside its bytes (the TSO runtime's buffered stores to it). Accesses through
    /// this API's memory functions are recorded without it.
    pub fn footprint_object(&self, obj: u32, write: bool) {
        crate::hooks::report(|h| h.object(obj, write));
    }

    /// Is a search with partial-order reduction recording this transition's accesses?
    pub fn footprint_recording(&self) -> bool {
        crate::hooks::observed()
    }

    /// Partial-order reduction: this call read (or changed) the shape of the data an
    /// extension keeps for thread `t` (the TSO runtime: which entries its buffer holds,
    /// which later facts count by position). Distinct from every object.
    pub fn footprint_thread_data(&self, t: ThreadId, write: bool) {
        crate::hooks::report(|h| h.thread_data(t, write));
    }

    /// Partial-order reduction: this call reads whether thread `t` has ended.
    pub(crate) fn footprint_thread(&self, t: ThreadId) {
        crate::hooks::report(|h| h.thread_end(t, false));
    }

    /// Partial-order reduction: this call did something that cannot be described as
    /// accesses to objects; it is dependent on every other transition.
    pub fn footprint_everything(&self) {
        crate::hooks::report(|h| h.everything());
    }

    /// Is race detection on (`--races warn|deny`)?
    pub fn races_tracked(&self) -> bool {
        self.state.races.is_some()
    }

    /// Race detection, for a memory model whose natives stand for the program's own
    /// loads and stores (the C11 runtime): the calling thread accesses `len` bytes at
    /// `ptr` (already checked valid) with `order`, as the interpreter records its own
    /// accesses. Its ordering comes from the model (`race_messages`, `race_fence`).
    pub fn race_access(&mut self, ptr: u64, len: u64, write: bool, order: MemOrder) {
        if self.state.races.is_none() || len == 0 {
            return;
        }
        let (obj, off) = ptr_parts(ptr);
        // The race data of these bytes changes (`explore::footprint`).
        crate::hooks::report(|h| h.bytes(obj, off as u64, len, write));
        let (program, tid, user_location_of) = (self.program, self.tid, self.user_location_of);
        let site = |st: &State| user_location_in(program, st, tid, user_location_of);
        let at = (obj, off, len.min(u32::MAX as u64) as u32);
        if let Some(race) =
            self.state
                .record_race_access(tid, at, write, order.is_atomic(), site, |_, _| {})
        {
            self.program_races.push((race, ptr, len));
        }
    }

    /// Race detection: what the memory model's step did to its per-location histories
    /// (`crate::race::MessageEvent`): each load acquires from the message it read.
    pub fn race_messages(&mut self, events: &[MessageEvent]) {
        let tid = self.tid;
        if let Some(r) = self.state.races_mut() {
            for e in events {
                r.message_event(tid, e);
            }
        }
    }

    /// Race detection: the calling thread's fence with `order` (a release fence
    /// publishes through its later relaxed stores, an acquire fence takes what its
    /// earlier relaxed loads read).
    pub fn race_fence(&mut self, order: MemOrder) {
        let tid = self.tid;
        if let Some(r) = self.state.races_mut() {
            r.fence(tid, order);
        }
    }

    /// Race detection: this thread acquires what was released to the synchronisation
    /// object at `ptr` (lock, wake, barrier exit, once done, join).
    pub(crate) fn race_acquire(&mut self, ptr: u64) {
        let (tid, key) = (self.tid, ptr_parts(ptr));
        if let Some(r) = self.state.races_mut() {
            // Reads the location's release clock (`explore::footprint`, race data).
            crate::hooks::report(|h| h.bytes(key.0, key.1 as u64, 1, false));
            r.acquire(tid, key);
        }
        self.sync(super::SyncEvent::Acquire(ptr));
    }

    /// Race detection: this thread releases all it did so far to the synchronisation
    /// object at `ptr` (unlock, signal, barrier arrival, once completion).
    pub(crate) fn race_release(&mut self, ptr: u64) {
        let (tid, key) = (self.tid, ptr_parts(ptr));
        if let Some(r) = self.state.races_mut() {
            // Writes the location's release clock (`explore::footprint`, race data).
            crate::hooks::report(|h| h.bytes(key.0, key.1 as u64, 1, true));
            r.release(tid, key);
        }
        self.sync(super::SyncEvent::Release(ptr));
    }

    /// Race detection: this thread has seen thread `finished` end (join).
    pub(crate) fn race_join(&mut self, finished: ThreadId) {
        let tid = self.tid;
        if let Some(r) = self.state.races_mut() {
            r.join_thread(tid, finished);
        }
        self.sync(super::SyncEvent::Join(finished));
    }

    /// Tells the memory model's sync hook, if any.
    fn sync(&mut self, event: super::SyncEvent) {
        if let Some(hook) = self.sync_hook.clone() {
            hook(self, event);
        }
    }
}
