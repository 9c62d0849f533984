//! C++ runtime failure paths. With -fno-exceptions every libstdc++ `__throw_*` helper and
//! std::terminate end the program; each is an abort verdict saying what was thrown.

use crate::error::{ErrorKind, Failure};
use crate::natives::{NativeCx, NativeResult, Natives, Visibility};
use crate::value::Val;

/// (symbol, what it reports); helpers taking a `const char*` message append it.
const THROWS: &[(&str, &str)] = &[
    ("_ZSt20__throw_system_errori", "std::system_error"),
    (
        "_ZSt25__throw_bad_function_callv",
        "std::bad_function_call (empty std::function called)",
    ),
    ("_ZSt17__throw_bad_allocv", "std::bad_alloc"),
    (
        "_ZSt28__throw_bad_array_new_lengthv",
        "std::bad_array_new_length",
    ),
    ("_ZSt16__throw_bad_castv", "std::bad_cast"),
    ("_ZSt18__throw_bad_typeidv", "std::bad_typeid"),
    ("_ZSt21__throw_bad_exceptionv", "std::bad_exception"),
    ("_ZSt19__throw_future_errori", "std::future_error"),
    ("_ZSt20__throw_length_errorPKc", "std::length_error"),
    ("_ZSt20__throw_out_of_rangePKc", "std::out_of_range"),
    ("_ZSt24__throw_out_of_range_fmtPKcz", "std::out_of_range"),
    ("_ZSt19__throw_logic_errorPKc", "std::logic_error"),
    ("_ZSt24__throw_invalid_argumentPKc", "std::invalid_argument"),
    ("_ZSt20__throw_domain_errorPKc", "std::domain_error"),
    ("_ZSt20__throw_runtime_errorPKc", "std::runtime_error"),
    ("_ZSt19__throw_range_errorPKc", "std::range_error"),
    ("_ZSt21__throw_overflow_errorPKc", "std::overflow_error"),
    ("_ZSt22__throw_underflow_errorPKc", "std::underflow_error"),
];

pub(crate) fn register(n: &mut Natives) {
    for &(name, what) in THROWS {
        let with_message = name.contains("PKc");
        n.add(name, Visibility::Never, move |cx, a| {
            thrown(cx, a, what, with_message)
        });
    }
    n.add("_ZSt9terminatev", Visibility::Never, |_, _| {
        Err(Failure::new(
            ErrorKind::Abort,
            "std::terminate called (e.g. a joinable std::thread was destroyed)",
        ))
    });
    n.add("__cxa_pure_virtual", Visibility::Never, |_, _| {
        Err(Failure::new(
            ErrorKind::Abort,
            "pure virtual function called",
        ))
    });
    n.add("__cxa_deleted_virtual", Visibility::Never, |_, _| {
        Err(Failure::new(
            ErrorKind::Abort,
            "deleted virtual function called",
        ))
    });
    n.add("__cxa_begin_catch", Visibility::Never, |_, _| {
        Err(Failure::new(
            ErrorKind::Abort,
            "exception reached a noexcept boundary (std::terminate)",
        ))
    });
    // Destructors of thread_local objects are not run (they are registered and ignored).
    n.add("__cxa_thread_atexit", Visibility::Never, |_, _| {
        Ok(NativeResult::Return(Val::Int(0)))
    });
    n.alias("__cxa_thread_atexit_impl", "__cxa_thread_atexit");
}

fn thrown(
    cx: &mut NativeCx<'_>,
    a: &[Val],
    what: &str,
    with_message: bool,
) -> Result<NativeResult, Failure> {
    let message = match a.first() {
        Some(p) if with_message && p.as_u64() != 0 => cx
            .read_c_string(p.as_u64())
            .ok()
            .map(|m| String::from_utf8_lossy(&m).into_owned()),
        _ => None,
    };
    let text = match message {
        Some(m) => format!("{what} thrown: {m} (aborts with -fno-exceptions)"),
        None => format!("{what} thrown (aborts with -fno-exceptions)"),
    };
    Err(Failure::new(ErrorKind::Abort, text))
}
