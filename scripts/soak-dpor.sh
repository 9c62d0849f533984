#!/usr/bin/env bash
# Dynamic partial-order reduction soak: every litmus test and corpus program, and N
# programs of each generator (default 2000, from seed S), with `--experimental-dpor`
# and without (tests/tests/differential_dpor.rs). Usage: scripts/soak-dpor.sh [N] [S]
set -euo pipefail
cd "$(dirname "$0")/.."
TSO_POR_ALL=1 TSO_SOAK="${1:-2000}" TSO_SEED="${2:-0}" \
    cargo test --release -p tso-suite --test differential_dpor -- --nocapture
