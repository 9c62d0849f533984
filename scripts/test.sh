#!/usr/bin/env bash
# The README's second command: install what is missing, check formatting and lints,
# then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# csmith generates the programs of the interpreter-vs-native differential test;
# chromium renders the --html pages in cargo-tso's browser test (tests/html.rs).
bash scripts/setup.sh csmith libcsmith-dev chromium
rustup component add rustfmt clippy >/dev/null 2>&1 || true
cargo fmt --all --check
cargo clippy --workspace --all-targets --release -- -D warnings
cargo test --workspace --release
# Instruction counts of the default run against the committed baseline (no wall times).
bash scripts/perf-guard.sh
# The published crates package (metadata, include lists) and test-support ships tso.h.
cargo package --no-verify --allow-dirty -p tso-verdict -p tso-engine -p tso-runtime -p test-support -p cargo-tso
cargo package --list --allow-dirty -p test-support | grep -qx include/tso.h
