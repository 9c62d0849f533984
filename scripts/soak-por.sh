#!/usr/bin/env bash
# Partial-order reduction soak: every litmus test and corpus program, and N generated
# TSO programs (default 2000, from seed S), with and without the reduction
# (tests/tests/differential_por.rs). Usage: scripts/soak-por.sh [N] [S]
set -euo pipefail
cd "$(dirname "$0")/.."
TSO_POR_ALL=1 TSO_SOAK="${1:-2000}" TSO_SEED="${2:-0}" \
    cargo test --release -p tso-suite --test differential_por -- --nocapture
