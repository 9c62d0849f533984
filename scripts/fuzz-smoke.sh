#!/usr/bin/env bash
# Fuzzes the engine's loader, translator and a bounded check with mutated LLVM IR text.
# Usage: scripts/fuzz-smoke.sh [SECONDS]   (default 60; a full run is 600)
# Needs: a nightly toolchain (rustup toolchain install nightly) and cargo-fuzz
# (cargo install cargo-fuzz). The seed corpus is the project's own C programs compiled
# to LLVM IR with clang-19 at -O0 and -O2 (fuzz/corpus/ir_text, regenerated if empty).
# Crashes land in fuzz/artifacts/ir_text/; the script exits non-zero when one is found.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
corpus=fuzz/corpus/ir_text
mkdir -p "$corpus"
if [ -z "$(ls -A "$corpus")" ]; then
    for src in tests/programs/*/*.c tests/litmus/*.c; do
        name="$(basename "$(dirname "$src")")_$(basename "$src" .c)"
        for opt in O0 O2; do
            clang-19 -S -emit-llvm -"$opt" -w -I test-support/include -o "$corpus/$name.$opt.ll" "$src" 2>/dev/null || rm -f "$corpus/$name.$opt.ll"
        done
    done
    # Drop target-specific attribute noise that only slows mutation down.
    sed -i -e '/^attributes #/d' -e 's/ #[0-9]\+//g' "$corpus"/*.ll
fi
echo "seed corpus: $(ls "$corpus" | wc -l) files"
cd fuzz
# -rss_limit_mb: the engine's own limits should keep it far below this.
exec cargo +nightly fuzz run ir_text "corpus/ir_text" -- \
    -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=4096 -print_final_stats=1
