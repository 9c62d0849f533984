//! `cargo-tso`: a thin shell over the library (see `lib.rs`).

fn main() {
    // Like other command-line tools, end quietly when the reader of our output goes
    // away (`cargo tso check x.c | head -1`) instead of failing on the next write.
    // SAFETY: restoring the default disposition of one signal at start-up, before any
    // other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(cargo_tso::run(std::env::args_os()));
}
