//! Turning run outcomes into text for people and JSON for tools; shared by `check`
//! and `test`.

pub mod failure;
pub mod fences;
pub mod figures;
pub mod html;
pub mod json;
pub mod orderings;
pub mod paths;
pub mod source;
pub mod trace;

/// `1234567` as `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The `-v` listing of the C library functions the program calls that have no model,
/// each line indented by `indent`; empty when there are none.
pub fn unmodelled_block(unmodelled: &[String], indent: &str) -> String {
    if unmodelled.is_empty() {
        return String::new();
    }
    let mut text = format!(
        "{indent}library functions without a model (unsupported where a run reaches one):\n"
    );
    for u in unmodelled {
        text.push_str(&format!("{indent}  {u}\n"));
    }
    text
}

#[cfg(test)]
mod snapshots;

#[cfg(test)]
mod tests {
    #[test]
    fn grouping_of_thousands() {
        use super::grouped;
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(100_000), "100,000");
    }
}
