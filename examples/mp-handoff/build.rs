use test_support::{MemoryModel, Races, Tests};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut lib = cc::Build::new();
    lib.file("csrc/handoff.c").include("csrc").std("c11");
    lib.try_compile("handoff")?;
    println!("cargo:rerun-if-changed=csrc");

    // Every test runs twice: under x86-TSO (`name [tso]`) and under C11 (`name [c11]`),
    // the contract ARM and POWER CPUs and the compiler keep.
    Tests::new()
        .races(Races::Deny)
        .cc_build(&lib)
        .source("csrc/handoff.c")
        .memory_models([MemoryModel::Tso, MemoryModel::C11])
        .file("tso-tests/fixed.c")
        // The same library with the flag stored and loaded relaxed: the bug this
        // example documents.
        .file_with("tso-tests/relaxed.c", |f| {
            f.define("HANDOFF_RELAXED", None);
        })
        .emit()?;
    Ok(())
}
