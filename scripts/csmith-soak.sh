#!/usr/bin/env bash
# Differential soak: N csmith programs (default 2000) run natively (clang-19 -O0/-O2) and
# under `cargo tso check` (SC and TSO); prints how many agree and lists disagreements.
# Usage: scripts/csmith-soak.sh [N] [FIRST_SEED]
#   env: TSO_CSMITH_JOBS (workers), TSO_CSMITH_SB_BOUND (--sb-bound for TSO runs),
#        TSO_CSMITH_KEEP (directory for disagreeing programs, default target/csmith-disagreements)
# Needs: apt-get install -y csmith libcsmith-dev
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-2000}"
first="${2:-100000}"
export TSO_CSMITH_COUNT="$count" TSO_CSMITH_SEED="$first"
export TSO_CSMITH_KEEP="${TSO_CSMITH_KEEP:-$PWD/target/csmith-disagreements}"
cargo test -p tso-suite --test csmith -- --nocapture --test-threads 1 2>&1 |
    sed -n '/^csmith: seeds/,/^$/p'
echo "disagreeing programs (if any) kept in $TSO_CSMITH_KEEP"
