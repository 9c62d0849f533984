fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut lib = cc::Build::new();
    lib.file("csrc/peterson.c").include("csrc").std("c11");
    lib.try_compile("peterson")?;
    println!("cargo:rerun-if-changed=csrc");

    // The C code synchronises only through atomics (no data races): a race would be
    // a bug, so it fails the tests.
    test_support::Tests::new()
        .races(test_support::Races::Deny)
        .cc_build(&lib)
        .source("csrc/peterson.c")
        .dir("tso-tests")
        .emit()?;
    Ok(())
}
