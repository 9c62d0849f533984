#!/usr/bin/env bash
# Thread-symmetry soak: N random TSO programs (default 2000) and every corpus program,
# each checked with and without thread symmetry (`--no-symmetry`); verdicts, error
# kinds and locations, and outcome sets must be identical, and a finished run with
# symmetry must store no more states (tests/tests/differential_symmetry.rs).
# Usage: scripts/soak-symmetry.sh [N] [FIRST_SEED]
set -euo pipefail
cd "$(dirname "$0")/.."
export TSO_SOAK="${1:-2000}" TSO_SEED="${2:-0}"
cargo test --release -p tso-suite --test differential_symmetry -- --nocapture
