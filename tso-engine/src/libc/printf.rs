//! printf-style formatting over program memory.

use crate::error::{ErrorKind, Failure};
use crate::value::Val;

/// The program memory printf reads (%s strings) and writes (%n counts).
pub(crate) trait StringSource {
    fn c_string(&mut self, ptr: u64) -> Result<Vec<u8>, Failure>;
    /// Store `count` as a `bytes`-byte integer at `ptr` (%n).
    fn store_count(&mut self, ptr: u64, count: u64, bytes: u64) -> Result<(), Failure>;
}

/// Format `fmt` with `args` the way glibc's printf does for the common conversions.
pub(crate) fn format(
    fmt: &[u8],
    args: &[Val],
    strings: &mut dyn StringSource,
) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    let mut args = Args { args, used: 0 };
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let spec = Spec::parse(fmt, &mut i, &mut args)?;
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        let body: Vec<u8> = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => spec.signed(args.next()?.bits()),
            b'u' | b'x' | b'X' | b'o' => spec.unsigned(conv, args.next()?.bits()),
            b'c' => pad(vec![args.next()?.bits() as u8], spec.width, spec.left),
            b's' => {
                let p = args.next()?.as_u64();
                let mut s = if p == 0 {
                    b"(null)".to_vec()
                } else {
                    strings.c_string(p)?
                };
                if let Some(pr) = spec.prec {
                    s.truncate(pr);
                }
                pad(s, spec.width, spec.left)
            }
            b'p' => {
                let p = args.next()?.as_u64();
                let s = if p == 0 {
                    "(nil)".to_string()
                } else {
                    format!("0x{p:x}")
                };
                pad(s.into_bytes(), spec.width, spec.left)
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                spec.float(conv, args.next()?.f64())
            }
            b'n' => {
                // glibc writes the count so far through the pointer, NULL or not.
                let p = args.next()?.as_u64();
                strings.store_count(p, out.len() as u64, spec.bits as u64 / 8)?;
                continue;
            }
            other => {
                return Err(Failure::unsupported(format!(
                    "unsupported: printf conversion %{}",
                    other as char
                )))
            }
        };
        out.extend_from_slice(&body);
    }
    Ok(out)
}

/// printf's arguments, taken in order.
struct Args<'a> {
    args: &'a [Val],
    used: usize,
}

impl Args<'_> {
    fn next(&mut self) -> Result<Val, Failure> {
        let v = self.args.get(self.used).cloned().ok_or_else(|| {
            Failure::new(
                ErrorKind::OutOfBounds,
                "printf: fewer arguments than conversions",
            )
        })?;
        self.used += 1;
        Ok(v)
    }
}

/// What comes between `%` and the conversion character: flags, width, precision and
/// the length modifiers' integer width.
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
    bits: u32,
}

impl Spec {
    /// Reads a spec from `fmt[*i..]`, leaving `*i` at the conversion character; a `*`
    /// width or precision takes the next argument.
    fn parse(fmt: &[u8], i: &mut usize, args: &mut Args) -> Result<Spec, Failure> {
        let mut s = Spec {
            left: false,
            plus: false,
            space: false,
            alt: false,
            zero: false,
            width: 0,
            prec: None,
            bits: 32,
        };
        while *i < fmt.len() {
            match fmt[*i] {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                b'0' => s.zero = true,
                _ => break,
            }
            *i += 1;
        }
        if *i < fmt.len() && fmt[*i] == b'*' {
            let w = args.next()?.bits() as i32;
            if w < 0 {
                s.left = true;
            }
            s.width = w.unsigned_abs() as usize;
            *i += 1;
        } else {
            s.width = digits(fmt, i);
        }
        if *i < fmt.len() && fmt[*i] == b'.' {
            *i += 1;
            if *i < fmt.len() && fmt[*i] == b'*' {
                let p = args.next()?.bits() as i32;
                s.prec = if p >= 0 { Some(p as usize) } else { None };
                *i += 1;
            } else {
                s.prec = Some(digits(fmt, i));
            }
        }
        // Length modifiers: the width of the integer argument.
        while *i < fmt.len() && matches!(fmt[*i], b'h' | b'l' | b'z' | b'j' | b't' | b'L' | b'q') {
            s.bits = match fmt[*i] {
                b'h' => {
                    if s.bits == 16 {
                        8
                    } else {
                        16
                    }
                }
                _ => 64,
            };
            *i += 1;
        }
        Ok(s)
    }

    fn sign(&self, negative: bool) -> &'static str {
        if negative {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        }
    }

    /// At least `prec` digits; none for a zero with precision 0.
    fn with_precision(&self, mut digits: String, is_zero: bool) -> String {
        if let Some(p) = self.prec {
            if p == 0 && is_zero {
                digits.clear();
            }
            while digits.len() < p {
                digits.insert(0, '0');
            }
        }
        digits
    }

    /// `%d`, `%i`.
    fn signed(&self, v: u128) -> Vec<u8> {
        let n = crate::value::sext(v & crate::value::mask(self.bits), self.bits) as i64;
        let digits = self.with_precision(n.unsigned_abs().to_string(), n == 0);
        let zero = self.zero && self.prec.is_none();
        pad_number(self.sign(n < 0), &digits, self.width, self.left, zero)
    }

    /// `%u`, `%x`, `%X`, `%o`.
    fn unsigned(&self, conv: u8, v: u128) -> Vec<u8> {
        let v = (v & crate::value::mask(self.bits)) as u64;
        let digits = match conv {
            b'u' => v.to_string(),
            b'x' => format!("{v:x}"),
            b'X' => format!("{v:X}"),
            _ => format!("{v:o}"),
        };
        let digits = self.with_precision(digits, v == 0);
        let prefix = match (self.alt, conv, v) {
            (true, b'x', v) if v != 0 => "0x",
            (true, b'X', v) if v != 0 => "0X",
            (true, b'o', _) if !digits.starts_with('0') => "0",
            _ => "",
        };
        let zero = self.zero && self.prec.is_none();
        pad_number(prefix, &digits, self.width, self.left, zero)
    }

    /// `%f`, `%e`, `%g`, `%a` and their upper-case forms.
    fn float(&self, conv: u8, f: f64) -> Vec<u8> {
        let p = self.prec.unwrap_or(6);
        let upper = conv.is_ascii_uppercase();
        let body = if !f.is_finite() {
            let t = if f.is_nan() { "nan" } else { "inf" };
            if upper {
                t.to_uppercase()
            } else {
                t.to_string()
            }
        } else {
            let a = f.abs();
            match conv {
                b'f' | b'F' => c_fixed(a, p, self.alt),
                b'e' | b'E' => c_exp(a, p, self.alt, upper),
                b'g' | b'G' => c_general(a, p, self.alt, upper),
                _ => c_hex(a, self.prec, self.alt, upper),
            }
        };
        let sign = self.sign(f.is_sign_negative());
        // %a's zero padding goes after its 0x.
        let sign = match (conv, f.is_finite()) {
            (b'a', true) => format!("{sign}0x"),
            (b'A', true) => format!("{sign}0X"),
            _ => sign.to_string(),
        };
        // Zero padding does not apply to inf and nan.
        pad_number(
            &sign,
            &body,
            self.width,
            self.left,
            self.zero && f.is_finite(),
        )
    }
}

/// The decimal number at `fmt[*i..]` (0 when there is none), moving `*i` past it.
fn digits(fmt: &[u8], i: &mut usize) -> usize {
    let mut n = 0usize;
    while *i < fmt.len() && fmt[*i].is_ascii_digit() {
        n = n * 10 + (fmt[*i] - b'0') as usize;
        *i += 1;
    }
    n
}

fn pad(s: Vec<u8>, width: usize, left: bool) -> Vec<u8> {
    if s.len() >= width {
        return s;
    }
    let fill = vec![b' '; width - s.len()];
    if left {
        [s, fill].concat()
    } else {
        [fill, s].concat()
    }
}

fn pad_number(prefix: &str, digits: &str, width: usize, left: bool, zero: bool) -> Vec<u8> {
    let len = prefix.len() + digits.len();
    if len >= width {
        return format!("{prefix}{digits}").into_bytes();
    }
    let n = width - len;
    if left {
        format!("{prefix}{digits}{}", " ".repeat(n)).into_bytes()
    } else if zero {
        format!("{prefix}{}{digits}", "0".repeat(n)).into_bytes()
    } else {
        format!("{}{prefix}{digits}", " ".repeat(n)).into_bytes()
    }
}

/// %f of a non-negative finite number.
fn c_fixed(f: f64, p: usize, alt: bool) -> String {
    let mut s = format!("{f:.p$}");
    if alt && p == 0 {
        s.push('.');
    }
    s
}

/// %e of a non-negative finite number: d.ddde±XX.
fn c_exp(f: f64, p: usize, alt: bool, upper: bool) -> String {
    let s = format!("{f:.p$e}");
    // Rust writes 1.5e2; C writes 1.5e+02.
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let dot = if alt && p == 0 { "." } else { "" };
    let r = format!("{m}{dot}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    if upper {
        r.to_uppercase()
    } else {
        r
    }
}

/// %a of a non-negative finite number after its 0x, as glibc writes it: the leading
/// digit 1 (0 for zero and subnormals, whose exponent is then -1022), the 52 fraction
/// bits as 13 hex digits with trailing zeros dropped unless a precision is given, and
/// a precision rounds to nearest, ties to even, the carry going into the leading digit.
fn c_hex(f: f64, prec: Option<usize>, alt: bool, upper: bool) -> String {
    let bits = f.to_bits();
    let (biased, mut frac) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
    let mut lead = u64::from(biased != 0);
    let exp = match (biased, frac) {
        (0, 0) => 0,
        (0, _) => -1022,
        _ => biased - 1023,
    };
    let mut digits = 13;
    if let Some(p) = prec.filter(|&p| p < 13) {
        let dropped = 4 * (13 - p) as u32;
        let rest = frac & ((1 << dropped) - 1);
        let half = 1 << (dropped - 1);
        frac >>= dropped;
        let odd = if p == 0 { lead & 1 } else { frac & 1 };
        if rest > half || (rest == half && odd == 1) {
            frac += 1;
            if p == 0 || frac >> (4 * p) != 0 {
                lead += 1;
                frac &= (1 << (4 * p)) - 1;
            }
        }
        digits = p;
    }
    let mut hex = if digits == 0 {
        String::new()
    } else {
        format!("{frac:0digits$x}")
    };
    match prec {
        None => hex.truncate(hex.trim_end_matches('0').len()),
        Some(p) => hex.extend(std::iter::repeat_n('0', p.saturating_sub(digits))),
    }
    let dot = if hex.is_empty() && !alt { "" } else { "." };
    let e = if exp < 0 { '-' } else { '+' };
    let r = format!("{lead}{dot}{hex}p{e}{}", exp.unsigned_abs());
    if upper {
        r.to_uppercase()
    } else {
        r
    }
}

/// %g of a non-negative finite number: %e or %f, whichever C's rule picks, with
/// trailing zeros removed unless `#`.
fn c_general(f: f64, p: usize, alt: bool, upper: bool) -> String {
    let p = if p == 0 { 1 } else { p };
    // The exponent after rounding to p significant digits decides the style.
    let exp = if f == 0.0 {
        0
    } else {
        let s = format!("{f:.prec$e}", prec = p - 1);
        s.split_once('e')
            .and_then(|(_, e)| e.parse::<i32>().ok())
            .unwrap_or(0)
    };
    let mut s = if exp < -4 || exp >= p as i32 {
        c_exp(f, p - 1, alt, upper)
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        c_fixed(f, decimals, alt)
    };
    if !alt {
        if let Some(epos) = s.find(['e', 'E']) {
            let (m, e) = s.split_at(epos);
            let m = if m.contains('.') {
                m.trim_end_matches('0').trim_end_matches('.')
            } else {
                m
            };
            s = format!("{m}{e}");
        } else if s.contains('.') {
            s = s.trim_end_matches('0').trim_end_matches('.').to_string();
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// %s strings: a pointer is an index into a fixed table.
    struct Table(Vec<&'static str>, Vec<(u64, u64, u64)>);
    impl StringSource for Table {
        fn c_string(&mut self, ptr: u64) -> Result<Vec<u8>, Failure> {
            self.0
                .get(ptr as usize - 1)
                .map(|s| s.as_bytes().to_vec())
                .ok_or_else(|| Failure::new(ErrorKind::OutOfBounds, "bad string"))
        }
        fn store_count(&mut self, ptr: u64, count: u64, bytes: u64) -> Result<(), Failure> {
            self.1.push((ptr, count, bytes));
            Ok(())
        }
    }

    fn i(v: i64) -> Val {
        Val::Int(v as u64 as u128)
    }
    fn d(v: f64) -> Val {
        Val::F64(v.to_bits())
    }
    fn s(idx: u64) -> Val {
        Val::Ptr(idx)
    }
    fn fmt(f: &str, args: &[Val]) -> String {
        let mut strings = Table(vec!["hello", "abc"], Vec::new());
        String::from_utf8(format(f.as_bytes(), args, &mut strings).expect("format")).expect("utf8")
    }

    // Expected strings are what glibc's printf prints for the same calls.
    #[test]
    fn integer_conversions_flags_and_widths() {
        assert_eq!(
            fmt(
                "[%d|%5d|%-5d|%05d|%x|%#x|%o|%c|%%]",
                &[i(42), i(42), i(42), i(42), i(255), i(255), i(8), i(65)]
            ),
            "[42|   42|42   |00042|ff|0xff|10|A|%]"
        );
        assert_eq!(
            fmt(
                "[%d|%5d|%-5d|%05d|%+d|% d|%x|%u]",
                &[i(-42), i(-42), i(-42), i(-42), i(7), i(7), i(-1), i(-1)]
            ),
            "[-42|  -42|-42  |-0042|+7| 7|ffffffff|4294967295]"
        );
        assert_eq!(
            fmt("[%X|%#X|%#o|%x]", &[i(0xabc), i(0xabc), i(0), i(0)]),
            "[ABC|0XABC|0|0]"
        );
        assert_eq!(
            fmt(
                "[%.5d|%.0d|%#o|%#.3o|%*d|%-*d]",
                &[i(42), i(0), i(8), i(8), i(4), i(7), i(4), i(7)]
            ),
            "[00042||010|010|   7|7   ]"
        );
    }

    #[test]
    fn length_modifiers() {
        assert_eq!(
            fmt("[%hhd|%hhu|%hd|%hu|%ld|%lld|%zu|%lx|%llu]", &[i(300), i(300), i(70000), i(70000), i(-5_000_000_000), i(-9_000_000_000_000_000_000), i(12_345_678_901), i(0xdead_beef_cafe), i(-1)]),
            "[44|44|4464|4464|-5000000000|-9000000000000000000|12345678901|deadbeefcafe|18446744073709551615]"
        );
        assert_eq!(fmt("%hhd %hd", &[i(200), i(40000)]), "-56 -25536");
    }

    #[test]
    fn strings_and_chars() {
        assert_eq!(
            fmt(
                "[%s|%.3s|%5.2s|%-6c|%s]",
                &[s(1), s(1), s(2), i('z' as i64), Val::Ptr(0)]
            ),
            "[hello|hel|   ab|z     |(null)]"
        );
        assert_eq!(fmt("%p", &[Val::Ptr(0)]), "(nil)");
    }

    #[test]
    fn floating_point_conversions() {
        assert_eq!(
            fmt(
                "[%f|%.2f|%e|%g]",
                &[d(3.14259), d(2.005), d(12345.678), d(0.0001234)]
            ),
            "[3.142590|2.00|1.234568e+04|0.0001234]"
        );
        assert_eq!(
            fmt(
                "[%8.3f|%-8.2e|%+.1f|%08.2f|%.0f|%.0e|%G|%E]",
                &[
                    d(3.14259),
                    d(1234.5),
                    d(2.25),
                    d(-3.5),
                    d(2.5),
                    d(15000.0),
                    d(1e-10),
                    d(0.5)
                ]
            ),
            "[   3.143|1.23e+03|+2.2|-0003.50|2|2e+04|1E-10|5.000000E-01]"
        );
        assert_eq!(
            fmt(
                "[%g|%g|%g|%g|%g|%#g|%.3g|%.10g]",
                &[
                    d(100000.0),
                    d(1000000.0),
                    d(1e-4),
                    d(1e-5),
                    d(123456789.0),
                    d(1.5),
                    d(3.14259),
                    d(1.0 / 3.0)
                ]
            ),
            "[100000|1e+06|0.0001|1e-05|1.23457e+08|1.50000|3.14|0.3333333333]"
        );
        assert_eq!(
            fmt(
                "[%f|%g|%e|%.*f]",
                &[d(-0.0), d(1e100), d(0.0), i(2), d(1.23456)]
            ),
            "[-0.000000|1e+100|0.000000e+00|1.23]"
        );
        // float arguments arrive promoted to double, but a float value formats the same.
        assert_eq!(fmt("%.3f", &[Val::F32(1.5f32.to_bits())]), "1.500");
    }

    #[test]
    fn floating_point_edge_cases() {
        assert_eq!(
            fmt("[%g|%g|%#.0f]", &[d(-0.0), d(999999.5), d(3.0)]),
            "[-0|1e+06|3.]"
        );
        assert_eq!(fmt("%g", &[d(0.00009999995)]), "0.0001");
    }

    #[test]
    fn nan_and_infinity() {
        let nan = f64::NAN;
        assert_eq!(
            fmt(
                "[%f|%g|%e|%f|%F|%5.1f]",
                &[
                    d(nan),
                    d(-nan),
                    d(nan),
                    d(f64::INFINITY),
                    d(f64::INFINITY),
                    d(f64::NEG_INFINITY)
                ]
            ),
            "[nan|-nan|nan|inf|INF| -inf]"
        );
    }

    #[test]
    fn percent_n_stores_the_count_with_its_width() {
        let mut t = Table(vec![], Vec::new());
        let out = format(b"ab%ncd%hhn%ln", &[s(7), s(8), s(9)], &mut t).expect("format");
        assert_eq!(out, b"abcd");
        assert_eq!(t.1, vec![(7, 2, 4), (8, 4, 1), (9, 4, 8)]);
    }

    #[test]
    fn missing_arguments_and_unknown_conversions_are_errors() {
        assert!(format(b"%d %d", &[i(1)], &mut Table(vec![], vec![])).is_err());
        let e = format(b"%k", &[i(1)], &mut Table(vec![], vec![])).expect_err("unknown conversion");
        assert_eq!(e.kind, ErrorKind::Unsupported);
    }
}
