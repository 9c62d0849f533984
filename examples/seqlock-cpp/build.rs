fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut lib = cc::Build::new();
    lib.cpp(true)
        .std("c++17")
        .flag("-fno-exceptions")
        .file("csrc/seqlock_ffi.cpp")
        .include("csrc");
    lib.try_compile("seqlock")?;
    println!("cargo:rerun-if-changed=csrc");

    // The tests use the header-only SeqlockPair directly; they inherit -std=c++17
    // and -fno-exceptions from the library's build.
    // The C code synchronises only through atomics (no data races): a race would be
    // a bug, so it fails the tests.
    test_support::Tests::new()
        .races(test_support::Races::Deny)
        .cc_build(&lib)
        .dir("tso-tests")
        .emit()?;
    Ok(())
}
