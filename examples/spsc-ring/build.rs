fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut lib = cc::Build::new();
    lib.file("csrc/spsc_ring.c").include("csrc").std("c11");
    lib.try_compile("spsc_ring")?;
    println!("cargo:rerun-if-changed=csrc");

    // The TSO tests are compiled like the library and linked with its source;
    // nothing is compiled here, `cargo tso test` does that.
    // The C code synchronises only through atomics (no data races): a race would be
    // a bug, so it fails the tests.
    test_support::Tests::new()
        .races(test_support::Races::Deny)
        .cc_build(&lib)
        .source("csrc/spsc_ring.c")
        .dir("tso-tests")
        .emit()?;
    Ok(())
}
