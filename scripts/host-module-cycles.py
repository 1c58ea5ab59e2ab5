#!/usr/bin/env python3
"""Checks that the top-level modules of host/src import each other without a cycle.

An edge A -> B is a `crate::B` path in code (not comments) of module A (a file or folder
directly under host/src). Prints the graph; exits 1 naming a cycle if there is one.
Usage: python3 scripts/host-module-cycles.py [SRC_DIR]
"""
import collections
import os
import re
import sys

src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'host', 'src')
edges = collections.defaultdict(set)
where = {}
for root, _, files in os.walk(src):
    for name in files:
        if not name.endswith('.rs'):
            continue
        path = os.path.join(root, name)
        module = os.path.relpath(path, src).split(os.sep)[0].removesuffix('.rs')
        if module in ('main', 'lib'):
            continue
        for number, line in enumerate(open(path, encoding='utf-8'), 1):
            if line.lstrip().startswith('//'):
                continue
            for match in re.finditer(r'\bcrate::(\w+)', line):
                target = match.group(1)
                if target != module:
                    edges[module].add(target)
                    where.setdefault((module, target), f'{os.path.relpath(path, src)}:{number}')

state, stack = {}, []


def visit(module):
    state[module] = 'open'
    stack.append(module)
    for target in sorted(edges.get(module, ())):
        if state.get(target) == 'open':
            cycle = stack[stack.index(target):] + [target]
            print('cycle: ' + ' -> '.join(cycle))
            for a, b in zip(cycle, cycle[1:]):
                print(f'  {a} -> {b} at {where[(a, b)]}')
            sys.exit(1)
        if target not in state:
            visit(target)
    state[module] = 'done'
    stack.pop()


for module in sorted(edges):
    print(f'{module} -> {", ".join(sorted(edges[module]))}')
for module in sorted(edges):
    if module not in state:
        visit(module)
print('no cycle among the modules of host/src')
