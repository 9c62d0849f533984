#!/usr/bin/env bash
# The instruction-count guard: runs `tso-bench --defaults --instructions` (each program
# of the --defaults set checked by cargo-tso under callgrind, capped in states) and
# fails when a count rises more than 10% over bench/instructions.baseline.
# `scripts/perf-guard.sh --write` records new counts instead: commit them on their own,
# saying why they changed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh valgrind
cargo build --release -p cargo-tso -p tso-bench
if [ "${1:-}" = "--write" ]; then
  ./target/release/tso-bench --defaults --instructions --write-baseline bench/instructions.baseline
else
  ./target/release/tso-bench --defaults --instructions --baseline bench/instructions.baseline
fi
