//! <ctype.h>: the is*/to* functions, and the glibc tables the header's macros and inline
//! functions index directly (`__ctype_b_loc`, `__ctype_toupper_loc`,
//! `__ctype_tolower_loc`), for the "C" locale. Each table is indexed from -128 to 255.

use super::hidden::{thread_object, CTYPE_CLASS, CTYPE_TOLOWER, CTYPE_TOUPPER};
use crate::memory::Fragment;
use crate::natives::arg;
use crate::natives::{NativeResult, Natives, Visibility};
use crate::value::Val;

// glibc's class bits as stored (little-endian byte-swapped `_ISbit`).
const UPPER: u16 = 0x100;
const LOWER: u16 = 0x200;
const ALPHA: u16 = 0x400;
const DIGIT: u16 = 0x800;
const XDIGIT: u16 = 0x1000;
const SPACE: u16 = 0x2000;
const PRINT: u16 = 0x4000;
const GRAPH: u16 = 0x8000;
const BLANK: u16 = 0x1;
const CNTRL: u16 = 0x2;
const PUNCT: u16 = 0x4;
const ALNUM: u16 = 0x8;

/// The classes of a character (0 outside 0..=127: the "C" locale).
pub(crate) fn classes(c: i64) -> u16 {
    if !(0..128).contains(&c) {
        return 0;
    }
    let b = c as u8;
    let mut m = 0;
    let mut set = |cond: bool, bit: u16| {
        if cond {
            m |= bit;
        }
    };
    set(b.is_ascii_uppercase(), UPPER);
    set(b.is_ascii_lowercase(), LOWER);
    set(b.is_ascii_alphabetic(), ALPHA);
    set(b.is_ascii_digit(), DIGIT);
    set(b.is_ascii_hexdigit(), XDIGIT);
    set(
        matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
        SPACE,
    );
    set((0x20..0x7f).contains(&b), PRINT);
    set(b.is_ascii_graphic(), GRAPH);
    set(b == b' ' || b == b'\t', BLANK);
    set(b.is_ascii_control(), CNTRL);
    set(b.is_ascii_punctuation(), PUNCT);
    set(b.is_ascii_alphanumeric(), ALNUM);
    m
}

fn to_upper(c: i64) -> i64 {
    if (b'a' as i64..=b'z' as i64).contains(&c) {
        c - 32
    } else {
        c
    }
}

fn to_lower(c: i64) -> i64 {
    if (b'A' as i64..=b'Z' as i64).contains(&c) {
        c + 32
    } else {
        c
    }
}

/// An object holding a pointer (at 0) to entry 0 of a table of `width`-byte entries for
/// characters -128..=255 that follows it.
fn table(base: u64, width: usize, entry: impl Fn(i64) -> i64) -> Fragment {
    let mut data = vec![0u8; 8 + 384 * width];
    data[..8].copy_from_slice(&(base + 8 + 128 * width as u64).to_le_bytes());
    for (i, c) in (-128i64..256).enumerate() {
        let v = entry(c).to_le_bytes();
        data[8 + i * width..8 + (i + 1) * width].copy_from_slice(&v[..width]);
    }
    Fragment {
        data,
        ptrs: vec![0],
        undef: Vec::new(),
    }
}

fn char_arg(a: &[Val]) -> Result<i64, crate::error::Failure> {
    Ok(arg(a, 0)? as u32 as i32 as i64)
}

fn ret_int(v: i64) -> Result<NativeResult, crate::error::Failure> {
    Ok(NativeResult::Return(Val::Int(v as i32 as u32 as u128)))
}

pub(crate) fn register(n: &mut Natives) {
    n.add("__ctype_b_loc", Visibility::Never, |cx, _| {
        let p = thread_object(cx, CTYPE_CLASS, |base| {
            table(base, 2, |c| classes(c) as i64)
        })?;
        Ok(NativeResult::Return(Val::Ptr(p)))
    });
    n.add("__ctype_toupper_loc", Visibility::Never, |cx, _| {
        let p = thread_object(cx, CTYPE_TOUPPER, |base| table(base, 4, to_upper))?;
        Ok(NativeResult::Return(Val::Ptr(p)))
    });
    n.add("__ctype_tolower_loc", Visibility::Never, |cx, _| {
        let p = thread_object(cx, CTYPE_TOLOWER, |base| table(base, 4, to_lower))?;
        Ok(NativeResult::Return(Val::Ptr(p)))
    });
    n.add("toupper", Visibility::Never, |_, a| {
        ret_int(to_upper(char_arg(a)?))
    });
    n.add("tolower", Visibility::Never, |_, a| {
        ret_int(to_lower(char_arg(a)?))
    });
    const PREDICATES: &[(&str, u16)] = &[
        ("isupper", UPPER),
        ("islower", LOWER),
        ("isalpha", ALPHA),
        ("isdigit", DIGIT),
        ("isxdigit", XDIGIT),
        ("isspace", SPACE),
        ("isprint", PRINT),
        ("isgraph", GRAPH),
        ("isblank", BLANK),
        ("iscntrl", CNTRL),
        ("ispunct", PUNCT),
        ("isalnum", ALNUM),
    ];
    for &(name, bit) in PREDICATES {
        n.add(name, Visibility::Never, move |_, a| {
            ret_int((classes(char_arg(a)?) & bit) as i64)
        });
    }
    n.add("isascii", Visibility::Never, |_, a| {
        ret_int((char_arg(a)? & !0x7f == 0) as i64)
    });
}
