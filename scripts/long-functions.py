#!/usr/bin/env python3
"""Lists Rust functions longer than N lines (default 120), longest first.

    scripts/long-functions.py [N] [DIR...]      # DIR defaults to tso-engine/src

A function's length counts from the line holding `fn` to the line of its closing
brace, both included (attributes and doc comments are not counted). Functions nested
in another function, and those in `#[cfg(test)]` modules, are listed too. Comments,
strings, raw strings and character literals are skipped when matching braces.
Prints `lines  path:line  Type::name` per function and a total; exits 0 always (it is
a report, not a gate). A function may stay over the limit when a comment says why
splitting it would hurt; this script does not read such comments.
"""
import os
import signal
import re
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def blank_out(src):
    """The source with comments, strings and char literals replaced by spaces
    (newlines kept), so that braces and keywords can be matched on it."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', src[i:]) and not (i and (src[i - 1].isalnum() or src[i - 1] == "_")):
            hashes = re.match(r"r(#*)\"", src[i:]).group(1)
            end = src.find('"' + hashes, i + 2 + len(hashes))
            j = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            j += 1
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif c == "'":
            # A char literal ('a', '\n', '\u{..}') or a lifetime ('a); b'x' is caught here too.
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", src[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    """Yields (length, line, qualified name) for each function with a body in `path`."""
    text = blank_out(open(path, encoding="utf-8").read())
    line_at = [0] * (len(text) + 1)
    line = 1
    for k, ch in enumerate(text):
        line_at[k] = line
        if ch == "\n":
            line += 1
    line_at[len(text)] = line
    # Brace depth at which each `impl` block's body opens, with its type name.
    impls = []
    depth = 0
    pending_impl = None
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "{":
            depth += 1
            if pending_impl is not None:
                impls.append((depth, pending_impl))
                pending_impl = None
            i += 1
        elif c == "}":
            while impls and impls[-1][0] == depth:
                impls.pop()
            depth -= 1
            i += 1
        elif c == ";":
            pending_impl = None
            i += 1
        elif c.isalpha() or c == "_":
            m = IDENT.match(text, i)
            word = m.group(0)
            prev = text[i - 1] if i else " "
            if prev.isalnum() or prev == "_":
                i = m.end()
                continue
            if word == "impl":
                pending_impl = impl_type(text, m.end())
            elif word == "fn":
                name_m = IDENT.match(text, skip_space(text, m.end()))
                if name_m:
                    body = body_start(text, name_m.end())
                    if body is not None:
                        end = matching_brace(text, body)
                        owner = impls[-1][1] + "::" if impls else ""
                        first, last = line_at[i], line_at[end]
                        yield last - first + 1, first, owner + name_m.group(0)
            i = m.end()
        else:
            i += 1


def skip_space(text, i):
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def impl_type(text, i):
    """The self type's last path segment in `impl<..> [Trait for] Type<..> {`."""
    j = text.find("{", i)
    head = text[i:j]
    head = re.sub(r"\bwhere\b.*", "", head, flags=re.S)
    if " for " in head:
        head = head.split(" for ", 1)[1]
    # Drop generic arguments, then take the last identifier of the path.
    while "<" in head:
        new = re.sub(r"<[^<>]*>", "", head)
        if new == head:
            break
        head = new
    names = IDENT.findall(head)
    return names[-1] if names else "?"


def body_start(text, i):
    """Offset of the `{` opening a function body after its name, or None for a
    declaration ending in `;` (trait methods, extern fns)."""
    angle = paren = 0
    while i < len(text):
        c = text[i]
        if c == "(":
            paren += 1
        elif c == ")":
            paren -= 1
        elif c == "<":
            angle += 1
        elif c == ">" and text[i - 1] != "-":
            angle -= 1
        elif c == ";" and paren == 0:
            return None
        elif c == "{" and paren == 0 and angle <= 0:
            return i
        i += 1
    return None


def matching_brace(text, i):
    depth = 0
    while i < len(text):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(text)


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    args = sys.argv[1:]
    limit = 120
    if args and args[0].isdigit():
        limit = int(args.pop(0))
    roots = args or ["tso-engine/src"]
    found = []
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for f in sorted(files):
                if f.endswith(".rs"):
                    path = os.path.join(dirpath, f)
                    for length, line, name in functions(path):
                        if length > limit:
                            found.append((length, f"{path}:{line}", name))
    found.sort(key=lambda t: (-t[0], t[1]))
    for length, where, name in found:
        print(f"{length:5}  {where}  {name}")
    print(f"{len(found)} functions over {limit} lines")


if __name__ == "__main__":
    main()
