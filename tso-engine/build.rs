//! Fails early, with an install hint, when LLVM 19 is missing (instead of a wall of linker errors).
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=LLVM_SYS_191_PREFIX");
    let prefix = std::env::var("LLVM_SYS_191_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-19".into());
    let config = Path::new(&prefix).join("bin/llvm-config");
    let dylib = Path::new(&prefix).join("lib/libLLVM-19.so");
    if !config.exists() || !dylib.exists() {
        eprintln!();
        eprintln!("error: LLVM 19 was not found under {prefix}.");
        eprintln!(
            "cargo-tso needs LLVM 19 (the llvm-19-dev package) to build, and clang-19 to run."
        );
        eprintln!("Install them with:");
        eprintln!("    sudo apt-get install -y clang-19 llvm-19-dev libpolly-19-dev zlib1g-dev libzstd-dev");
        eprintln!("or run `bash scripts/setup.sh`, which does it for you.");
        eprintln!("If LLVM 19 lives elsewhere, set LLVM_SYS_191_PREFIX to its prefix.");
        std::process::exit(1);
    }
}
