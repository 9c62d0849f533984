#!/usr/bin/env python3
"""The default run side by side with GenMC and Nidhugg, as a markdown table.

    scripts/peers-bench.py [--cargo-tso BIN] [--peers DIR] [--rounds N] [--timeout S]
                           [--memory-model tso|sc] [PROGRAM[:-DNAME=V,...]]...

Each program (default: issue 31's set, below) is checked `--rounds` times (default 2)
by each tool in turn: ours as `cargo tso check [-D...] FILE`, exactly as a user runs
it; the peers through their adapters `genmc-check` and `nidhugg-check` (built by
`../shared/peers/build.sh`; `--peers` is their directory, default `../shared/peers`
beside the repository). Wall time is each whole process, compilation included; the
peers' own verification time (`time_s`) is printed beside it. Every tool gets
`--timeout` (default 300 s; the adapters then stop the tool's whole process group) and
reports `inconclusive` when it runs out. Not part of the test suite, which must run
without the peers.

What is counted differs per tool: our stored states, GenMC's complete executions,
Nidhugg's traces (a Mazurkiewicz trace per run it explores).
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))

ISSUE_31 = [
    "mcs4.c",
    "ticket4x2.c",
    "ticket4x2_acqrel.c",
    "wsdeque3.c",
    "wsdeque3.c:-DTASKS=5,-DTHIEVES=3",
    "mpmc3x3.c:-DPRODUCERS=2",
]


def parse_program(spec):
    """`file.c:-DA=1,-DB=2` -> (path, ["-DA=1", "-DB=2"])."""
    name, _, defines = spec.partition(":")
    path = name if os.path.isabs(name) else os.path.join(ROOT, "bench", "programs", name)
    return path, [d for d in defines.split(",") if d]


def timed(cmd, timeout):
    """Runs `cmd`, which stops itself at `timeout`; the margin only keeps a tool that
    does not from hanging the run."""
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        return None, None, None
    return time.monotonic() - start, p.stdout, p.returncode


def ours(bin_, path, defines, model, timeout):
    cmd = [bin_, "tso", "check", "--memory-model", model, "--format", "json", "--timeout", str(timeout)]
    wall, out, code = timed(cmd + defines + [path], timeout)
    if wall is None:
        return f"did not stop at {timeout} s"
    try:
        j = json.loads(out)
    except ValueError:
        return f"exit {code}, no report"
    states = j.get("states")
    return f"{j.get('verdict')}, {states:,} states, {wall:.2f} s" if states is not None else f"{j.get('verdict')}, {wall:.2f} s"


def peer(adapter, path, defines, model, timeout):
    cmd = [adapter, "check", path] + defines
    wall, out, code = timed(cmd + ["--memory-model", model, "--format", "json", "--timeout", str(timeout)], timeout)
    if wall is None:
        return f"did not stop at {timeout} s"
    try:
        j = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return f"exit {code}, no report"
    if j.get("executions") is None:
        return f"{j.get('verdict')}: {j.get('detail', '')[:60]}"
    return f"{j['verdict']}, {j['executions']:,}, {j.get('time_s')} s ({wall:.2f} s)"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cargo-tso", default=os.path.join(ROOT, "target", "release", "cargo-tso"))
    ap.add_argument("--peers", default=os.path.join(os.path.dirname(ROOT), "shared", "peers"))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--memory-model", default="tso", choices=["tso", "sc"])
    ap.add_argument("programs", nargs="*", default=ISSUE_31)
    args = ap.parse_args()
    adapters = {name: os.path.join(args.peers, f"{name}-check") for name in ("genmc", "nidhugg")}
    for name, adapter in adapters.items():
        if not os.access(adapter, os.X_OK):
            sys.exit(f"peers-bench: no {name} adapter at {adapter} (--peers DIR)")
    print("| program | round | cargo tso: verdict, states, wall | GenMC: verdict, executions, time_s (wall) | Nidhugg: verdict, traces, time_s (wall) |")
    print("|---|---:|---|---|---|")
    for spec in args.programs:
        path, defines = parse_program(spec)
        label = os.path.basename(path) + "".join(f" `{d}`" for d in defines)
        for r in range(1, args.rounds + 1):
            a = ours(args.cargo_tso, path, defines, args.memory_model, args.timeout)
            g = peer(adapters["genmc"], path, defines, args.memory_model, args.timeout)
            n = peer(adapters["nidhugg"], path, defines, args.memory_model, args.timeout)
            print(f"| {label} | {r} | {a} | {g} | {n} |", flush=True)


if __name__ == "__main__":
    main()
