//! `cargo-tso`: a thin shell over the library (see `lib.rs`).

fn main() {
    std::process::exit(cargo_tso::run(std::env::args_os()));
}
