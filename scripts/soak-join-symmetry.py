#!/usr/bin/env python3
"""Soak for the join-array symmetry rule (on by default; `--no-join-symmetry`, issue 29).

    scripts/soak-join-symmetry.py [--cargo-tso BIN] FIRST_SEED COUNT

Writes COUNT random programs whose identical workers are started into `main`'s
`pthread_t t[N]` array, given 0 or their index (which they never read), and joined
in a loop (workers: plain and atomic stores, loads,
RMWs, a mutex, spins on flags, assertions; `main`: something before the joins, an
assertion after), and checks each at -O0 under TSO and SC with the rule and without.
Prints every program whose verdict or error kind differs, and how many runs the rule
changed the state count of. Not part of the test suite (its generated programs in
Rust: `tests/src/gen_join.rs`, run by `differential_symmetry`).
"""
import argparse
import json
import os
import random
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
def prog(seed):
    r = random.Random(seed)
    n = r.choice([2, 3, 3])
    vars_ = ["a", "b", "c"]
    def op(indent):
        k = r.randrange(9)
        v = r.choice(vars_); val = r.randrange(3)
        if k == 0: return f"{indent}{v} = {val};"
        if k == 1: return f"{indent}atomic_store(&A{v}, {val});"
        if k == 2: return f"{indent}{{ int t = atomic_load(&A{v}); if (t == {val}) {v} = {val}; }}"
        if k == 3: return f"{indent}pthread_mutex_lock(&m); {v}++; pthread_mutex_unlock(&m);"
        if k == 4: return f"{indent}atomic_fetch_add(&A{v}, 1);"
        if k == 5: return f"{indent}{{ int e = {val}; atomic_compare_exchange_strong(&A{v}, &e, {val}+1); }}"
        if k == 6: return f"{indent}while (atomic_load(&A{v}) == {r.randrange(1,3)} && atomic_load(&stop) == 0) {{}}"
        if k == 7: return f"{indent}assert(atomic_load(&A{v}) != {r.randrange(2,6)});"
        return f"{indent}if (atomic_fetch_add(&ticket, 1) == {r.randrange(n)}) atomic_store(&A{v}, {val});"
    body = "\n".join(op("    ") for _ in range(r.randrange(1, 4)))
    pre = ""
    k = r.randrange(5)
    if k == 0: pre = "    pthread_mutex_lock(&m); pthread_mutex_unlock(&m);\n"
    if k == 1: pre = "    atomic_store(&stop, 1);\n"
    if k == 2: pre = f"    while (atomic_load(&ticket) < {r.randrange(1, n+1)}) {{}}\n"
    post = r.choice(["", "    assert(atomic_load(&Aa) + atomic_load(&Ab) < 4);\n", "    assert(a + b + c < 3 * %d);\n" % n, "    assert(atomic_load(&ticket) == %d || 1);\n" % n])
    # Each worker's index, which it never reads (the rule's argument condition), or 0.
    arg = r.choice(["0", "(void *)(long)i"])
    src = f"""#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
int a, b, c;
atomic_int Aa, Ab, Ac, ticket, stop;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void *work(void *arg) {{
    (void)arg;
{body}
    return 0;
}}
int main(void) {{
    pthread_t t[{n}];
    for (int i = 0; i < {n}; i++)
        pthread_create(&t[i], 0, work, {arg});
{pre}    for (int i = 0; i < {n}; i++)
        pthread_join(t[i], 0);
{post}    return 0;
}}
"""
    return src
def run(tool, path, model, extra):
    p = subprocess.run([tool, "tso", "check", "--memory-model", model, "--format", "json", "--max-states", "200000", path] + extra + ["--", "-O0"], capture_output=True, text=True, timeout=300)
    try:
        j = json.loads(p.stdout)
        return (j.get("verdict"), (j.get("error") or {}).get("kind") if isinstance(j.get("error"), dict) else j.get("error_kind"), j.get("states"))
    except Exception:
        return ("rc%d" % p.returncode, p.stderr[-200:], None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cargo-tso", default=os.path.join(ROOT, "target/release/cargo-tso"))
    ap.add_argument("first_seed", type=int)
    ap.add_argument("count", type=int)
    args = ap.parse_args()
    applied = bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for s in range(args.first_seed, args.first_seed + args.count):
            path = os.path.join(tmp, f"seed_{s}.c")
            with open(path, "w") as f:
                f.write(prog(s))
            for model in ["tso", "sc"]:
                a = run(args.cargo_tso, path, model, [])
                b = run(args.cargo_tso, path, model, ["--no-join-symmetry"])
                if a[2] != b[2]:
                    applied += 1
                if a[:2] != b[:2]:
                    bad += 1
                    print("DIFF seed", s, model, "with the rule:", a, "without:", b, flush=True)
                    with open(path) as f:
                        print(f.read(), flush=True)
    print(f"seeds {args.first_seed}..{args.first_seed + args.count}: {bad} differences, "
          f"{applied} runs where the rule changed the state count")


if __name__ == "__main__":
    main()
