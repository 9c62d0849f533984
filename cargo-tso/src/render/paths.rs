//! How file names are shown: relative to the current directory when inside it.

use std::path::Path;

/// `src/x.c` for a file under the current directory, else the path as given.
pub fn display_path(file: &str) -> String {
    let path = Path::new(file);
    if let Ok(cwd) = std::env::current_dir() {
        if let Ok(rel) = path.strip_prefix(&cwd) {
            return rel.display().to_string();
        }
    }
    file.to_owned()
}

/// The file name alone, for compact trace lines.
pub fn short_name(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}
