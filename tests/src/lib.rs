//! Shared helpers for the end-to-end suites in `tests/tests/`: locating the corpus and
//! running the real `cargo-tso` binary.
