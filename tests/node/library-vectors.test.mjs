// The library vectors (tests/vectors/library/cases.json) through dist/: each input is one library
// crossing as the JS sends it, and the built core's answer must be the recorded text byte for
// byte. driver/tests/library_vectors.rs checks the same file natively.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers.mjs';
import { call } from '../../dist/lib/wasm.js';

const { cases } = JSON.parse(readFileSync(join(repoRoot, 'tests/vectors/library/cases.json'), 'utf8'));

test('every library vector answers its recorded text through dist/', () => {
  assert.ok(cases.length > 400, `the vectors were cut short: ${cases.length}`);
  const wrong = [];
  for (const [i, c] of cases.entries()) {
    // call() parses the answer; printed again it is the same text when nothing but the values
    // the core wrote is in it (its numbers are integers, its keys in the core's order).
    const got = JSON.stringify(call('library', c.input));
    if (got !== c.answer) wrong.push(`case ${i} (op ${c.input.op}):\n  want ${c.answer}\n  got  ${got}`);
  }
  assert.deepEqual(wrong, [], `${wrong.length} of ${cases.length} library vectors differ`);
});
