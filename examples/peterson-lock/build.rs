fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut lib = cc::Build::new();
    lib.file("csrc/peterson.c").include("csrc").std("c11");
    lib.try_compile("peterson")?;
    println!("cargo:rerun-if-changed=csrc");

    test_support::Tests::new()
        .cc_build(&lib)
        .source("csrc/peterson.c")
        .dir("tso-tests")
        .emit()?;
    Ok(())
}
