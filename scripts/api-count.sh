#!/usr/bin/env bash
# Counts tso-engine's public API: what another crate can name, from rustdoc's JSON
# output (nightly toolchain). Counted: each item of the crate that rustdoc documents
# without --document-private-items, i.e. reachable from the crate root through public
# modules or `pub use`: modules, types, traits and their items, functions, constants,
# statics, public struct fields, enum variants, and the public methods and constants
# of inherent impls. Not counted: `pub use` lines (the item they name is counted once),
# impl blocks, and the items of trait impls (their visibility is the trait's).
# `pub(crate)` items and the items of private modules never reach the output.
# Prints the total, the count per kind and the public modules.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/api-count"
cargo +nightly rustdoc -q -p tso-engine --lib -- -Z unstable-options --output-format json 2>/dev/null
jq -r '
  ([.index[] | select(.inner.impl != null and .inner.impl.trait != null)
             | .inner.impl.items[]] | map(tostring)) as $trait_impl_items
  | [.index[] | select(.crate_id == 0)
              | (.inner | keys[0]) as $kind
              | select($kind != "impl" and $kind != "use")
              | select((.id | tostring) as $id | $trait_impl_items | index($id) | not)
              | select(.visibility == "public" or $kind == "variant"
                       or $kind == "assoc_type" or $kind == "assoc_const"
                       or ($kind == "function" and .visibility == "default"))
              | {kind: $kind, name: .name}] as $items
  | "public items: \($items | length)",
    ($items | group_by(.kind) | map("  \(.[0].kind): \(length)") | .[]),
    "public modules: \([$items[] | select(.kind == "module" and .name != "tso_engine")
                        | .name] | sort | join(", "))"
' "$CARGO_TARGET_DIR/doc/tso_engine.json"
