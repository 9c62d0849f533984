#!/usr/bin/env bash
# CPU time of `cargo tso check PROGRAM` for several builds, run in alternation so that
# a shared machine's changing load falls on each build alike: ROUNDS rounds, each
# running every build once; prints the median of user + system time, of each alone, and
# the load average at the end.
#   scripts/alternate-cpu.sh 21 bench/programs/prodcons_cxx.cpp old=PATH new=PATH ...
# A command may carry environment settings: 'label=env VAR=value PATH'.
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 ROUNDS PROGRAM LABEL=CARGO_TSO..." >&2
    exit 2
fi
rounds=$1
program=$2
shift 2
declare -A total user sys
out=$(mktemp)
trap 'rm -f "$out"' EXIT
median() { tr ' ' '\n' <<<"$*" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for _ in $(seq "$rounds"); do
    for spec in "$@"; do
        label=${spec%%=*}
        # shellcheck disable=SC2086 # the command is split on purpose (env settings)
        /usr/bin/time -o "$out" -f "%U %S" ${spec#*=} tso check "$program" >/dev/null 2>&1 || true
        read -r u s < <(tail -1 "$out")
        total[$label]+=" $(awk -v u="$u" -v s="$s" 'BEGIN {printf "%d", (u + s) * 1000}')"
        user[$label]+=" $(awk -v u="$u" 'BEGIN {printf "%d", u * 1000}')"
        sys[$label]+=" $(awk -v s="$s" 'BEGIN {printf "%d", s * 1000}')"
    done
done
for spec in "$@"; do
    label=${spec%%=*}
    echo "$label: median $(median "${total[$label]}") ms (user $(median "${user[$label]}"), system $(median "${sys[$label]}")) [${total[$label]} ]"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
