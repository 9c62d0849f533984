//! printf-style formatting over program memory.

use crate::error::{ErrorKind, Failure};
use crate::value::Val;

/// Where %s strings come from.
pub trait StringSource {
    fn c_string(&self, ptr: u64) -> Result<Vec<u8>, Failure>;
}

/// Format `fmt` with `args` the way glibc's printf does for the common conversions.
pub fn format(fmt: &[u8], args: &[Val], strings: &dyn StringSource) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    let mut ai = 0usize;
    let next = |ai: &mut usize| -> Result<Val, Failure> {
        let v = args.get(*ai).cloned().ok_or_else(|| Failure::new(ErrorKind::OutOfBounds, "printf: fewer arguments than conversions"))?;
        *ai += 1;
        Ok(v)
    };
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let (mut left, mut plus, mut space, mut alt, mut zero) = (false, false, false, false, false);
        while i < fmt.len() {
            match fmt[i] {
                b'-' => left = true,
                b'+' => plus = true,
                b' ' => space = true,
                b'#' => alt = true,
                b'0' => zero = true,
                _ => break,
            }
            i += 1;
        }
        let mut width = 0usize;
        if i < fmt.len() && fmt[i] == b'*' {
            let w = next(&mut ai)?.bits() as i32;
            if w < 0 {
                left = true;
            }
            width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                width = width * 10 + (fmt[i] - b'0') as usize;
                i += 1;
            }
        }
        let mut prec: Option<usize> = None;
        if i < fmt.len() && fmt[i] == b'.' {
            i += 1;
            if i < fmt.len() && fmt[i] == b'*' {
                let p = next(&mut ai)?.bits() as i32;
                prec = if p >= 0 { Some(p as usize) } else { None };
                i += 1;
            } else {
                let mut p = 0;
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    p = p * 10 + (fmt[i] - b'0') as usize;
                    i += 1;
                }
                prec = Some(p);
            }
        }
        // Length modifiers: the width of the integer argument.
        let mut bits = 32u32;
        while i < fmt.len() && matches!(fmt[i], b'h' | b'l' | b'z' | b'j' | b't' | b'L' | b'q') {
            bits = match fmt[i] {
                b'h' => {
                    if bits == 16 {
                        8
                    } else {
                        16
                    }
                }
                _ => 64,
            };
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else { break };
        i += 1;
        let body: Vec<u8> = match conv {
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'd' | b'i' => {
                let v = next(&mut ai)?.bits();
                let n = crate::value::sext(v & crate::value::mask(bits), bits) as i64;
                let mut digits = n.unsigned_abs().to_string();
                if let Some(p) = prec {
                    if p == 0 && n == 0 {
                        digits.clear();
                    }
                    while digits.len() < p {
                        digits.insert(0, '0');
                    }
                }
                let sign = if n < 0 { "-" } else if plus { "+" } else if space { " " } else { "" };
                pad_number(sign, &digits, width, left, zero && prec.is_none())
            }
            b'u' | b'x' | b'X' | b'o' => {
                let v = (next(&mut ai)?.bits() & crate::value::mask(bits)) as u64;
                let mut digits = match conv {
                    b'u' => v.to_string(),
                    b'x' => format!("{v:x}"),
                    b'X' => format!("{v:X}"),
                    _ => format!("{v:o}"),
                };
                if let Some(p) = prec {
                    if p == 0 && v == 0 {
                        digits.clear();
                    }
                    while digits.len() < p {
                        digits.insert(0, '0');
                    }
                }
                let prefix = match (alt, conv, v) {
                    (true, b'x', v) if v != 0 => "0x",
                    (true, b'X', v) if v != 0 => "0X",
                    (true, b'o', _) if !digits.starts_with('0') => "0",
                    _ => "",
                };
                pad_number(prefix, &digits, width, left, zero && prec.is_none())
            }
            b'c' => pad(vec![next(&mut ai)?.bits() as u8], width, left),
            b's' => {
                let p = next(&mut ai)?.as_u64();
                let mut s = if p == 0 { b"(null)".to_vec() } else { strings.c_string(p)? };
                if let Some(pr) = prec {
                    s.truncate(pr);
                }
                pad(s, width, left)
            }
            b'p' => {
                let p = next(&mut ai)?.as_u64();
                let s = if p == 0 { "(nil)".to_string() } else { format!("0x{p:x}") };
                pad(s.into_bytes(), width, left)
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let f = next(&mut ai)?.f64();
                let p = prec.unwrap_or(6);
                let s = match conv {
                    b'f' | b'F' => format!("{f:.p$}"),
                    b'e' | b'E' => c_exp(f, p, conv == b'E'),
                    b'g' | b'G' => c_general(f, p, alt, conv == b'G'),
                    _ => format!("{f}"),
                };
                let (sign, digits) = match s.strip_prefix('-') {
                    Some(d) => ("-", d.to_string()),
                    None => (if plus { "+" } else if space { " " } else { "" }, s),
                };
                pad_number(sign, &digits, width, left, zero)
            }
            b'n' => {
                let _ = next(&mut ai)?;
                continue;
            }
            other => return Err(Failure::unsupported(format!("unsupported: printf conversion %{}", other as char))),
        };
        out.extend_from_slice(&body);
    }
    Ok(out)
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

fn c_exp(f: f64, p: usize, upper: bool) -> String {
    if !f.is_finite() {
        return format!("{f}");
    }
    let s = format!("{f:.p$e}");
    // Rust writes 1.5e2; C writes 1.5e+02.
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let r = format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
    if upper {
        r.to_uppercase()
    } else {
        r
    }
}

fn c_general(f: f64, p: usize, alt: bool, upper: bool) -> String {
    if f == 0.0 {
        return "0".into();
    }
    if !f.is_finite() {
        return format!("{f}");
    }
    let p = if p == 0 { 1 } else { p };
    let exp = f.abs().log10().floor() as i32;
    let mut s = if exp < -4 || exp >= p as i32 {
        c_exp(f, p - 1, upper)
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        format!("{f:.decimals$}")
    };
    if !alt {
        if let Some(epos) = s.find(['e', 'E']) {
            let (m, e) = s.split_at(epos);
            let m = if m.contains('.') { m.trim_end_matches('0').trim_end_matches('.') } else { m };
            s = format!("{m}{e}");
        } else if s.contains('.') {
            s = s.trim_end_matches('0').trim_end_matches('.').to_string();
        }
    }
    s
}
