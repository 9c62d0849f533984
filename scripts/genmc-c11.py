#!/usr/bin/env python3
"""Differential run of `cargo tso check --memory-model c11` against GenMC's RC11 mode.

    scripts/genmc-c11.py [--litmus] [--corpus] [--cargo-tso BIN] [--genmc-check PATH] [--timeout S]

Needs GenMC built by `../shared/peers/build.sh` (or any `genmc-check` adapter with the
same command line); not part of the test suite, which must run without it.

- `--litmus` (default when neither is given): every test of
  `tso-runtime/tests/fixtures/c11_litmus.txt`, written as C the way
  `tests/tests/c11_litmus.rs` writes it, once per outcome the file lists with
  `assert(!(that outcome))` (both tools must fail: the outcome is reachable) and once
  with `assert(one of the outcomes)` (both must pass: nothing else is reachable). So
  both tools are held to the file's outcome set, the RC11 enumerator's.
- `--corpus`: every program of `tests/programs/**` that uses atomics, both tools under
  c11, verdicts compared. Ours runs with `--races allow`, because the adapter runs
  GenMC with its race detection off (see the peers' README).

Prints one line per program and a summary; exits 1 if any litmus check disagrees
with the file, 0 otherwise (corpus differences are listed for a reader to explain).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
ORDERS = {"rlx": "memory_order_relaxed", "acq": "memory_order_acquire",
          "rel": "memory_order_release", "acqrel": "memory_order_acq_rel",
          "sc": "memory_order_seq_cst"}


def read_suite():
    tests = []
    with open(os.path.join(ROOT, "tso-runtime/tests/fixtures/c11_litmus.txt")) as f:
        for line in map(str.strip, f):
            if not line or line.startswith("#") or line.startswith("weak:"):
                continue
            if line.startswith("T:"):
                tests[-1]["threads"].append([o.strip() for o in line[2:].split(";")])
            elif line.startswith("outcomes:"):
                tests[-1]["outcomes"] = [o.strip() for o in line[9:].split(";")]
            else:
                tests.append({"name": line, "threads": [], "outcomes": []})
    return tests


def c_program(t, check):
    """The test as C; `check(reads, finals)` gives the asserted condition's C text."""
    used, reads, bodies = [], 0, []
    for ops in t["threads"]:
        body = ""
        for op in ops:
            w = op.split()
            if len(w) > 1 and w[0] != "fence" and w[1] not in used:
                used.append(w[1])
            if w[0] == "st":
                line = f"atomic_store_explicit(&{w[1]}, {w[2]}, {ORDERS[w[3]]});"
            elif w[0] == "ld":
                line = f"r[{reads}] = atomic_load_explicit(&{w[1]}, {ORDERS[w[2]]});"
                reads += 1
            elif w[0] == "faa":
                line = f"r[{reads}] = atomic_fetch_add_explicit(&{w[1]}, {w[2]}, {ORDERS[w[3]]});"
                reads += 1
            elif w[0] in ("cas", "casw"):
                strength = "weak" if w[0] == "casw" else "strong"
                line = (f"{{ int e = {w[2]}; atomic_compare_exchange_{strength}_explicit(&{w[1]}, &e, "
                        f"{w[3]}, {ORDERS[w[4]]}, {ORDERS[w[5]]}); r[{reads}] = e; }}")
                reads += 1
            elif w[0] == "fence":
                line = f"atomic_thread_fence({ORDERS[w[1]]});"
            else:
                raise SystemExit(f"{t['name']}: cannot read {op!r}")
            body += "    " + line + "\n"
        bodies.append(body)
    used.sort()
    n = len(t["threads"])
    c = "#include <assert.h>\n#include <pthread.h>\n#include <stdatomic.h>\n\natomic_int x, y, z;\n"
    c += f"int r[{max(reads, 1)}];\n\n"
    for i, body in enumerate(bodies):
        c += f"static void *t{i}(void *arg) {{\n    (void)arg;\n{body}    return NULL;\n}}\n\n"
    finals = [f"atomic_load_explicit(&{l}, memory_order_relaxed)" for l in used]
    c += f"int main(void) {{\n    pthread_t t[{n}];\n"
    for i in range(n):
        c += f"    pthread_create(&t[{i}], NULL, t{i}, NULL);\n"
    for i in range(n):
        c += f"    pthread_join(t[{i}], NULL);\n"
    c += f"    assert({check([f'r[{i}]' for i in range(reads)], finals)});\n    return 0;\n}}\n"
    return c


def outcome_expr(outcome, reads, finals):
    left, right = outcome.split("/")
    values = left.split() + right.split()
    names = reads + finals
    assert len(values) == len(names), (outcome, names)
    return "(" + " && ".join(f"{n} == {v}" for n, v in zip(names, values)) + ")"


def verdict(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return json.loads(p.stdout)["verdict"], p
    except (ValueError, KeyError):
        return {0: "pass", 1: "fail", 3: "inconclusive"}.get(p.returncode, "error"), p


def ours(args, path, *extra):
    return verdict([args.cargo_tso, "tso", "check", path, "--memory-model", "c11",
                    "--format", "json", "--timeout", str(args.timeout), *extra])


def genmc(args, path):
    return verdict([args.genmc_check, "check", path, "--memory-model", "c11", "--format", "json",
                    "--timeout", str(args.timeout)])


def litmus(args, tmp):
    bad = 0
    for t in read_suite():
        checks = [(f"reaches {o}", "fail", lambda r, f, o=o: "!" + outcome_expr(o, r, f))
                  for o in t["outcomes"]]
        checks.append(("nothing else", "pass",
                       lambda r, f: " || ".join(outcome_expr(o, r, f) for o in t["outcomes"])))
        wrong = []
        for what, expected, check in checks:
            path = os.path.join(tmp, re.sub(r"\W", "_", t["name"]) + ".c")
            with open(path, "w") as f:
                f.write(c_program(t, check))
            for tool, run in (("cargo-tso", ours), ("genmc", genmc)):
                got, _ = run(args, path)
                if got != expected:
                    wrong.append(f"{tool} {what}: {got}, expected {expected}")
        bad += bool(wrong)
        print(f"{t['name']:<24} {len(checks)} checks  " + ("agree" if not wrong else "; ".join(wrong)))
    print(f"litmus: {bad} of {len(read_suite())} tests disagree with the file")
    return bad


def corpus(args):
    files = []
    for d, _, names in os.walk(os.path.join(ROOT, "tests/programs")):
        for n in sorted(names):
            if n.endswith(".c"):
                p = os.path.join(d, n)
                if re.search(r"stdatomic|__atomic_|atomic_", open(p, errors="replace").read()):
                    files.append(p)
    same = 0
    for p in sorted(files):
        a, _ = ours(args, p, "--races", "allow")
        g, gp = genmc(args, p)
        rel = os.path.relpath(p, ROOT)
        if a == g:
            same += 1
            print(f"{rel:<60} both {a}")
        else:
            try:
                detail = json.loads(gp.stdout).get("detail", "")
            except ValueError:
                detail = gp.stderr.strip().splitlines()[-1:] or ""
            print(f"{rel:<60} cargo-tso {a}, genmc {g}: {detail}")
    print(f"corpus: {same} of {len(files)} atomics programs give the same verdict")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--litmus", action="store_true")
    ap.add_argument("--corpus", action="store_true")
    ap.add_argument("--cargo-tso", default=os.path.join(ROOT, "target/release/cargo-tso"))
    ap.add_argument("--genmc-check", default=os.path.join(ROOT, "../shared/peers/genmc-check"))
    ap.add_argument("--timeout", type=int, default=60, help="seconds per run of either tool")
    args = ap.parse_args()
    for tool in (args.cargo_tso, args.genmc_check):
        if not os.access(tool, os.X_OK):
            sys.exit(f"genmc-c11: {tool} is not an executable (see --help)")
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        if args.litmus or not args.corpus:
            bad = litmus(args, tmp)
        if args.corpus:
            corpus(args)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
