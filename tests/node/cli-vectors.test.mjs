// The CLI vectors (tests/vectors/cli/cases.json) through the built CLI, node dist/cli.js: the
// same exit codes, lines and messages as the core answers natively (driver/tests/cli_vectors.rs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers.mjs';
import { runCli } from '../support/run-action.mjs';

const { cases } = JSON.parse(readFileSync(join(repoRoot, 'tests/vectors/cli/cases.json'), 'utf8'));

for (const c of cases) {
  test(`cli vector: ${c.name}`, async () => {
    const run = await runCli(c.argv, { env: { GITHUB_TOKEN: '', GH_TOKEN: '', ...(c.env ?? {}) } });
    assert.equal(run.status, c.exit, run.stdout + run.stderr);
    if (c.stdout_starts) {
      assert.ok(run.stdout.startsWith(c.stdout_starts), run.stdout);
      return;
    }
    assert.equal(run.stdout.split('\n').length, 2, 'exactly one line');
    const line = JSON.parse(run.stdout);
    assert.deepEqual(pick(line, c.line), c.line);
  });
}

/** The fields of `actual` that `expected` names, recursively. */
function pick(actual, expected) {
  if (expected === null || typeof expected !== 'object' || Array.isArray(expected)) return actual;
  return Object.fromEntries(Object.keys(expected).map((k) => [k, pick(actual?.[k], expected[k])]));
}
