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
