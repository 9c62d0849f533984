//! The README's install and first-test instructions, run as a new user would: the
//! commands and files are read from the README's `<!-- readme-test: NAME -->` blocks,
//! so this fails when the README drifts from what works. cargo-tso is installed with
//! `--root` into a temporary directory (nothing outside it is installed) and the new
//! crate lives in the system's temporary directory, outside this workspace.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{run, scratch};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the repository root")
        .to_path_buf()
}

/// The fenced code block after each `<!-- readme-test: NAME -->` marker.
fn readme_blocks() -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(repository().join("README.md")).expect("README.md");
    let mut blocks = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line
            .trim()
            .strip_prefix("<!-- readme-test:")
            .and_then(|rest| rest.strip_suffix("-->"))
        else {
            continue;
        };
        let fence = lines.next().unwrap_or_default();
        assert!(
            fence.starts_with("```"),
            "no code block after marker {name}"
        );
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("```"))
            .collect();
        blocks.push((name.trim().to_owned(), body.join("\n") + "\n"));
    }
    blocks
}

fn block<'a>(blocks: &'a [(String, String)], name: &str) -> &'a str {
    blocks
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, body)| body.as_str())
        .unwrap_or_else(|| panic!("README has no `readme-test: {name}` block"))
}

/// A shell line's words, without a trailing `# comment`.
fn words(line: &str) -> Vec<String> {
    let code = line.split(" #").next().unwrap_or_default();
    code.split_whitespace().map(str::to_owned).collect()
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

#[test]
fn readme_install_and_first_test_work_as_written() {
    let blocks = readme_blocks();
    let root = scratch("readme-install-root");
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
        .to_path_buf();

    // 1. The install from a checkout, exactly as written, into a private root. The
    //    repository's target directory keeps it from compiling cargo-tso again.
    let install = block(&blocks, "install")
        .lines()
        .map(words)
        .find(|w| w.contains(&"--path".to_owned()))
        .expect("an install line with --path");
    assert_eq!(install[..2], ["cargo", "install"], "{install:?}");
    let out = run(cargo()
        .args(&install[1..])
        .arg("--root")
        .arg(&root)
        .current_dir(repository())
        .env("CARGO_TARGET_DIR", &target));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let bin = root.join("bin");
    assert!(bin.join("cargo-tso").is_file(), "{}", out.stderr);

    // 2. The new crate, outside this workspace, with the installed cargo-tso first on PATH.
    let home = std::env::temp_dir().join(format!("cargo-tso-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    std::fs::create_dir_all(&home).expect("temporary directory");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(&path)))
            .expect("PATH");
    let user = |args: &[String], dir: &Path| {
        run(cargo()
            .args(args)
            .current_dir(dir)
            .env("PATH", &path)
            .env("CARGO_TARGET_DIR", scratch("readme-first-target"))
            .env("NO_COLOR", "1")
            .env("CI", "1"))
    };
    let mut dir = home.clone();
    for line in block(&blocks, "new-crate").lines() {
        let w = words(line);
        match w.first().map(String::as_str) {
            None => {}
            Some("cd") => dir = dir.join(&w[1]),
            Some("mkdir") => std::fs::create_dir_all(dir.join(&w[1])).expect("mkdir"),
            Some("cargo") => {
                let out = user(&w[1..], &dir);
                assert_eq!(out.code, 0, "{line}: {}", out.stderr);
            }
            Some(other) => panic!("README step `{other}` is not one this test knows"),
        }
    }

    // 3. The files, as shown; the path dependency pointed at this checkout.
    let test_support = repository().join("test-support");
    let mut manifest_lines = Vec::new();
    let mut pointed = false;
    for line in block(&blocks, "Cargo.toml").lines() {
        match line.split_once("path = \"") {
            Some((head, tail)) if line.starts_with("test-support") => {
                let rest = tail.split_once('"').map_or("", |(_, r)| r);
                manifest_lines.push(format!("{head}path = \"{}\"{rest}", test_support.display()));
                pointed = true;
            }
            _ => manifest_lines.push(line.to_owned()),
        }
    }
    assert!(
        pointed,
        "the Cargo.toml block has no test-support path dependency"
    );
    let cargo_toml = dir.join("Cargo.toml");
    let mut text = std::fs::read_to_string(&cargo_toml).expect("cargo new's Cargo.toml");
    text.push('\n');
    text.push_str(&manifest_lines.join("\n"));
    std::fs::write(&cargo_toml, text).expect("Cargo.toml");
    for (name, body) in &blocks {
        if name.ends_with(".rs") || name.ends_with(".c") {
            std::fs::write(dir.join(name), body).expect("a README file");
        }
    }

    // 4. The run, and the lines the README shows (figures and times vary).
    let run_line = block(&blocks, "run")
        .lines()
        .map(words)
        .next()
        .expect("a command");
    assert_eq!(run_line[0], "cargo", "{run_line:?}");
    let out = user(&run_line[1..], &dir);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for expected in block(&blocks, "output").lines() {
        let stable = expected
            .split(" (")
            .next()
            .unwrap_or_default()
            .split(" finished in")
            .next()
            .unwrap_or_default();
        assert!(
            out.stdout.lines().any(|l| l.starts_with(stable)),
            "README shows `{expected}`; the run printed:\n{}",
            out.stdout
        );
    }
    let _ = std::fs::remove_dir_all(&home);
}
