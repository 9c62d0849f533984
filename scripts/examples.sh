#!/usr/bin/env bash
# The README's first command: install what is missing, build cargo-tso, and run the
# TSO tests of the bundled example crates (examples/), like `cargo test` runs Rust tests.
# The unfenced Peterson lock and the relaxed handoff (under C11) are expected failures;
# their counterexample traces are shown.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release -q -p cargo-tso
./target/release/cargo-tso tso test --workspace "$@"
