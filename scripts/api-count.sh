#!/usr/bin/env bash
# Counts tso-engine's public API: the items another crate can name, walked from the
# crate root in rustdoc's JSON output (nightly toolchain). Counted once each: public
# modules, and the types, traits, functions, constants and statics they hold or
# `pub use` re-exports; the public fields and the variants of those types, the public
# methods and constants of their inherent impls, and the items of those traits. Not
# counted: the crate root, `pub use` lines themselves, impl blocks, and the items of
# trait impls (their visibility is the trait's). Items of private modules count only
# when re-exported. Prints the total, the count per kind and the public modules.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/api-count"
cargo +nightly rustdoc -q -p tso-engine --lib -- -Z unstable-options --output-format json 2>/dev/null
python3 - "$CARGO_TARGET_DIR/doc/tso_engine.json" <<'PY'
import json, sys
from collections import Counter
doc = json.load(open(sys.argv[1]))
index = doc["index"]
seen, found = set(), []

def public(i):
    return index.get(str(i), {}).get("visibility") == "public"

def fields(kind):
    if not isinstance(kind, dict):
        return []
    if "plain" in kind:
        return kind["plain"]["fields"]
    return [f for f in kind.get("tuple", []) if f is not None]

def visit(i):
    i = str(i)
    if i in seen or i not in index or index[i]["crate_id"] != 0:
        return
    seen.add(i)
    item = index[i]
    kind, inner = next(iter(item["inner"].items()))
    if kind == "use":
        if inner.get("id") is not None:
            visit(inner["id"])
        return
    if kind == "impl":
        if inner.get("trait") is None:
            for c in inner["items"]:
                if public(c):
                    visit(c)
        return
    if i != str(doc["root"]):
        found.append((kind, item["name"]))
    if kind == "module":
        for c in inner["items"]:
            if public(c):
                visit(c)
    elif kind in ("struct", "enum", "union"):
        for f in fields(inner.get("kind")):
            if public(f):
                visit(f)
        for v in inner.get("variants", []):
            visit(v)
        for c in inner["impls"]:
            visit(c)
    elif kind == "variant":
        for f in fields(inner["kind"]):
            visit(f)
    elif kind == "trait":
        for c in inner["items"]:
            visit(c)

visit(doc["root"])
print(f"public items: {len(found)}")
for kind, n in sorted(Counter(k for k, _ in found).items()):
    print(f"  {kind}: {n}")
print("public modules:", ", ".join(sorted(n for k, n in found if k == "module")) or "none")
PY
