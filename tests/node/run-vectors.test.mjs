// The run vectors (tests/vectors/runs/cases.jsonl) through dist/: each line is one crossing of a
// CLI or Action run as the shell made it in the Node suite, and the built core must answer the
// recorded step byte for byte. driver/tests/run_vectors.rs checks the same file natively.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers.mjs';
import * as wasm from '../../dist/wasm/deferral_wasm.js';
import '../../dist/lib/wasm.js'; // instantiates the module

const cases = readFileSync(join(repoRoot, 'tests/vectors/runs/cases.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).slice(1).map((l) => JSON.parse(l));

test('every run vector answers its recorded step through dist/', () => {
  assert.ok(cases.length > 300, `the vectors were cut short: ${cases.length}`);
  const wrong = [];
  for (const [i, c] of cases.entries()) {
    const got = wasm.run(c.input, Buffer.from(c.files, 'base64'));
    if (got !== c.answer) wrong.push(`line ${i + 2}:\n  want ${c.answer}\n  got  ${got}`);
  }
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${cases.length} run vectors differ`);
});
