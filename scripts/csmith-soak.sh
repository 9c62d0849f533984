#!/usr/bin/env bash
# Differential soak: N csmith programs (default 2000) run natively (clang-19 -O0/-O2) and
# under `cargo tso check` (SC and TSO); prints seeds, agreements, checks that did not
# finish, and every disagreement.
# Usage: scripts/csmith-soak.sh [N] [FIRST_SEED] [PROFILE]
#   PROFILE: default (csmith's own options: bit-fields, packed structs, unions; the
#            default) or small (the CI test's small programs)
#   env: TSO_CSMITH_JOBS (workers), TSO_CSMITH_SB_BOUND (--sb-bound for TSO runs),
#        TSO_CSMITH_MINUTES (start no new seed after this many minutes),
#        TSO_CSMITH_LOG (one line per seed, default target/csmith-soak.log),
#        TSO_CSMITH_KEEP (directory for disagreeing programs, default
#        target/csmith-disagreements: csmith_SEED.c and csmith_SEED.txt, the csmith
#        command line that regenerates it and what disagreed)
# Needs: apt-get install -y csmith libcsmith-dev
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-2000}"
first="${2:-100000}"
profile="${3:-default}"
case "$profile" in
    default) test=csmith_default_options_match_native_execution ;;
    small) test=csmith_checksums_match_native_execution ;;
    *) echo "unknown profile '$profile' (default or small)" >&2; exit 2 ;;
esac
export TSO_CSMITH_COUNT="$count" TSO_CSMITH_SEED="$first"
export TSO_CSMITH_KEEP="${TSO_CSMITH_KEEP:-$PWD/target/csmith-disagreements}"
export TSO_CSMITH_VERBOSE=1
log="${TSO_CSMITH_LOG:-$PWD/target/csmith-soak.log}"
cargo test --release -p tso-suite --test csmith -- "$test" --exact --nocapture --test-threads 1 2>&1 |
    tee "$log" | sed -n '/^csmith: seeds/,/^$/p'
echo "per-seed log in $log; disagreeing programs (if any) kept in $TSO_CSMITH_KEEP"
