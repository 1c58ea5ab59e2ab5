// The shared decision vectors through the committed wasm build: Node must get exactly what the
// native core gets (core/tests/decision.rs checks the same files natively).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '../../dist/lib/wasm.js';
import { repoRoot } from './helpers.mjs';

const dir = join(repoRoot, 'tests/vectors/decisions');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

test('wasm decide gives the expected output for every shared decision vector', () => {
  assert.ok(files.length >= 8, `expected the decision vectors, found ${files.length}`);
  for (const file of files) {
    const vector = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const answer = call('decide', vector.input);
    assert.equal(answer.ok, true, `${file}: ${JSON.stringify(answer.error)}`);
    assert.deepEqual(answer.decision, vector.expected, file);
  }
});

test('a deferred vector carries a receipt the validator accepts, bound to the digest of its scope', async () => {
  const { validateReceipt, digest } = await import('../../dist/lib/wasm.js');
  let deferred = 0;
  for (const file of files) {
    const vector = JSON.parse(readFileSync(join(dir, file), 'utf8'));
    const { decision } = call('decide', vector.input);
    if (decision.status !== 'deferred') continue;
    deferred++;
    assert.equal(validateReceipt(JSON.stringify(decision.receipt)).ok, true, file);
    assert.equal(decision.receipt.bindings.scope_digest, digest('value', JSON.stringify(vector.input.scope)).digest, file);
  }
  assert.ok(deferred >= 3);
});
