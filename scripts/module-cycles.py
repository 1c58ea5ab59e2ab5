#!/usr/bin/env python3
"""Checks that the modules of each Rust crate import each other without a cycle.

Every module is looked at, nested ones included. The crate's module tree is read from its root
(`lib.rs`, `main.rs`) through `mod x;` declarations (files `x.rs` or `x/mod.rs`, inline
`mod x { ... }` blocks belong to their file). In code (comments and string literals removed),
each path is resolved to the module it names: `crate::a::b::c`, `super::`, `self::`, a child
module's name, and `use` trees such as `use crate::a::{b, c::{d, e}}` — the longest run of
segments that are modules gives the target; paths into other crates are not followed.

A module and the modules inside it form one unit: a parent may use its children (a facade that
re-exports or dispatches) and a child may use its ancestors, and neither is an edge. Every other
reference `x -> y` is an edge between the two children of their nearest common ancestor that
hold `x` and `y` (so `host/src/tick/a.rs` using `crate::store::sqlite` is the edge
`tick -> store` at the top of the crate, and `github/auth.rs` using `super::app` is the edge
`github::auth -> github::app`). Among the children of any one module there must be no cycle.
This finds every cycle between module files, and also a cycle between sibling subtrees.

KNOWN (scripts/module-cycles-known.txt) lists cycles that are known and owned by an issue; the
check fails on a cycle not in it and on an entry that is no longer a cycle, so a new cycle fails
and a fixed one must be removed from the list.

Usage: python3 scripts/module-cycles.py [--known FILE] [CRATE_SRC_DIR ...]
Default: host/src core/src driver/src protocol/src receipt/src wasm/src with scripts/module-cycles-known.txt.
Exits 1 naming each cycle found (with where each edge comes from); the last line sums up.
"""
import argparse
import collections
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_CRATES = ['host/src', 'core/src', 'driver/src', 'protocol/src', 'receipt/src', 'wasm/src']
DEFAULT_KNOWN = os.path.join(HERE, 'module-cycles-known.txt')


def strip_code(text):
    """The text with comments, string and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)

    def blank(s):
        return re.sub(r'[^\n]', ' ', s)

    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text.startswith('/*', i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith('/*', j):
                    depth, j = depth + 1, j + 2
                elif text.startswith('*/', j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(blank(text[i:j]))
            i = j
        else:
            prev_ident = i > 0 and (text[i - 1].isalnum() or text[i - 1] == '_')
            raw = None if prev_ident else re.match(r'b?r(#*)"', text[i:i + 300])
            if raw:
                end = text.find('"' + raw.group(1), i + raw.end())
                j = n if end < 0 else end + 1 + len(raw.group(1))
                out.append(blank(text[i:j]))
                i = j
            elif c == '"' or (c == 'b' and not prev_ident and text.startswith('b"', i)):
                j = i + (2 if c == 'b' else 1)
                while j < n and text[j] != '"':
                    j += 2 if text[j] == '\\' else 1
                out.append(blank(text[i:j + 1]))
                i = j + 1
            elif c == "'":
                char = re.match(r"'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|.)|[^\\'\n])'", text[i:i + 16])
                if char:
                    out.append(blank(char.group(0)))
                    i += char.end()
                else:  # a lifetime or label
                    out.append(c)
                    i += 1
            else:
                out.append(c)
                i += 1
    return ''.join(out)


TOKEN = re.compile(r'[A-Za-z_][A-Za-z0-9_]*|::|[{};,*]|\n|.', re.S)


def tokens(code):
    """(token, line) pairs, whitespace dropped."""
    line = 1
    for match in TOKEN.finditer(code):
        tok = match.group(0)
        if tok == '\n':
            line += 1
        elif not tok.isspace():
            yield tok, line


def is_ident(tok):
    return tok[0].isalpha() or tok[0] == '_'


def use_paths(toks, i, prefix=()):
    """Parses a use tree from toks[i]; returns (paths, next index). A path is a tuple of names;
    `a::{self, b}` gives `a` and `a::b`, `a::*` gives `a`."""
    path = list(prefix)
    paths = []
    while i < len(toks):
        tok, _ = toks[i]
        if tok == '{':
            i += 1
            while i < len(toks) and toks[i][0] != '}':
                sub, i = use_paths(toks, i, tuple(path))
                paths += sub
                if i < len(toks) and toks[i][0] == ',':
                    i += 1
            return paths, i + 1
        if tok == '*':
            return paths + [tuple(path)], i + 1
        if tok == 'self' and path == list(prefix) and prefix:
            i += 1
        elif is_ident(tok):
            path.append(tok)
            i += 1
        else:
            return paths, i
        if i < len(toks) and toks[i][0] == 'as':
            i += 2
        if i < len(toks) and toks[i][0] == '::':
            i += 1
            continue
        return paths + [tuple(path)], i
    return paths, i


class Crate:
    def __init__(self, src):
        self.src = src
        self.files = {}  # module path (tuple) -> file, for modules that are files
        self.children = collections.defaultdict(set)  # module path -> child names
        self.refs = []  # (file module, inline module path, path segments, line)
        for root in ('lib.rs', 'main.rs'):
            if os.path.exists(os.path.join(src, root)):
                self.read((), os.path.join(src, root), src)

    def read(self, module, path, child_dir):
        """Reads one module file; `child_dir` is where its `mod x;` files are."""
        if module in self.files:  # lib.rs and main.rs of one crate: main's tree merges in
            return
        self.files[module] = path
        toks = list(tokens(strip_code(open(path, encoding='utf-8').read())))
        stack = [(module, child_dir, -1)]  # inline modules: (path, their child dir, depth)
        depth, i = 0, 0
        while i < len(toks):
            tok, line = toks[i]
            here, here_dir, _ = stack[-1]
            if tok == 'mod' and i + 2 < len(toks) and is_ident(toks[i + 1][0]):
                name, after = toks[i + 1][0], toks[i + 2][0]
                if after in (';', '{'):
                    self.children[here].add(name)
                    if after == ';':
                        sub = self.find_file(here_dir, name)
                        if sub:
                            self.read(here + (name,), sub, os.path.join(here_dir, name))
                    else:
                        depth += 1
                        stack.append((here + (name,), os.path.join(here_dir, name), depth))
                        self.files.setdefault(here + (name,), None)
                    i += 3
                    continue
            if tok == 'use':
                paths, i = use_paths(toks, i + 1)
                for p in paths:
                    self.refs.append((module, here, p, line))
                continue
            if tok == '{':
                depth += 1
            elif tok == '}':
                if stack[-1][2] == depth:
                    stack.pop()
                depth -= 1
            elif is_ident(tok) and i + 1 < len(toks) and toks[i + 1][0] == '::' \
                    and (i == 0 or toks[i - 1][0] != '::'):
                segments, j = [tok], i + 1
                while j + 1 < len(toks) and toks[j][0] == '::' and is_ident(toks[j + 1][0]):
                    segments.append(toks[j + 1][0])
                    j += 2
                self.refs.append((module, here, tuple(segments), line))
                i = j
                continue
            i += 1

    @staticmethod
    def find_file(directory, name):
        for candidate in (os.path.join(directory, name + '.rs'),
                          os.path.join(directory, name, 'mod.rs')):
            if os.path.exists(candidate):
                return candidate
        return None

    def resolve(self, here, segments):
        """The module a path used in module `here` names, or None (another crate, a type)."""
        first = segments[0]
        if first == 'crate':
            at, rest = (), segments[1:]
        elif first in ('self', 'super'):
            at, rest = here, segments
            while rest and rest[0] in ('self', 'super'):
                if rest[0] == 'super':
                    if not at:
                        return None
                    at = at[:-1]
                rest = rest[1:]
        elif first in self.children.get(here, ()):
            at, rest = here, segments
        else:
            return None
        for name in rest:
            if name not in self.children.get(at, ()):
                break
            at = at + (name,)
        return at

    def file_of(self, module):
        while self.files.get(module) is None and module:
            module = module[:-1]
        return module

    def levels(self):
        """{parent module: {child: {child: 'file:line'}}}: the edges among each module's children."""
        graph = collections.defaultdict(lambda: collections.defaultdict(dict))
        for source, here, segments, line in self.refs:
            target = self.resolve(here, segments)
            if target is None:
                continue
            target = self.file_of(target)
            common = 0
            while common < min(len(source), len(target)) and source[common] == target[common]:
                common += 1
            if common == len(source) or common == len(target):
                continue  # the same module, an ancestor or a descendant
            parent = source[:common]
            where = f'{os.path.relpath(self.files[source], self.src)}:{line}'
            graph[parent][source[common]].setdefault(target[common], where)
        return graph


def simple_cycles(edges, limit=10000):
    """Every elementary cycle, each starting at its smallest node, as a list of nodes."""
    found = []
    nodes = sorted(set(edges) | {t for ts in edges.values() for t in ts})
    for start in nodes:
        stack = [(start, [start])]
        while stack and len(found) < limit:
            node, path = stack.pop()
            for nxt in sorted(edges.get(node, ())):
                if nxt == start:
                    found.append(path + [start])
                elif nxt > start and nxt not in path:
                    stack.append((nxt, path + [nxt]))
    return found


def read_known(path):
    known = set()
    if path and os.path.exists(path):
        for line in open(path, encoding='utf-8'):
            line = line.split('#', 1)[0].strip()
            if line:
                known.add(re.sub(r'\s+', ' ', line))
    return known


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--known', default=DEFAULT_KNOWN)
    parser.add_argument('--verbose', action='store_true', help='print every edge')
    parser.add_argument('crates', nargs='*')
    args = parser.parse_args()
    crates = args.crates or [os.path.join(ROOT, c) for c in DEFAULT_CRATES]
    known = read_known(args.known)
    seen, new = set(), []
    for src in crates:
        crate = Crate(src)
        label = os.path.relpath(src, ROOT) if not args.crates else src
        label = label.replace(os.sep, '/')
        for parent, edges in sorted(crate.levels().items()):
            prefix = ''.join(f'{p}::' for p in parent)
            if args.verbose:
                for a in sorted(edges):
                    print(f'{label} {prefix}{a} -> {", ".join(sorted(edges[a]))}')
            for cycle in simple_cycles(edges):
                name = f'{label}: ' + ' -> '.join(prefix + m for m in cycle)
                seen.add(name)
                status = 'known' if name in known else 'cycle'
                print(f'{status}: {name}')
                for a, b in zip(cycle, cycle[1:]):
                    print(f'  {prefix}{a} -> {prefix}{b} at {edges[a][b]}')
                if name not in known:
                    new.append(name)
    checked = {os.path.relpath(c, ROOT).replace(os.sep, '/') if not args.crates else c for c in crates}
    gone = sorted(k for k in known - seen if k.split(':', 1)[0] in checked)
    for name in gone:
        print(f'no longer a cycle, remove it from {os.path.relpath(args.known, os.getcwd())}: {name}')
    if new or gone:
        print(f'{len(new)} new module cycle(s), {len(gone)} stale known entr(y/ies) in {", ".join(sorted(checked))}')
        sys.exit(1)
    print(f'no module cycle in {", ".join(sorted(checked))} beyond the {len(seen)} known')


if __name__ == '__main__':
    main()
