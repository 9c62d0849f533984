#!/usr/bin/env bash
# The README's second command: install what is missing, then run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# csmith generates the programs of the interpreter-vs-native differential test.
bash scripts/setup.sh csmith libcsmith-dev
cargo test --workspace --release
