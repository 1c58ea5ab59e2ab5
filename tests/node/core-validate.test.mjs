// validateReceipt writes receipts into wasm memory it set aside once and reads refusals from
// where the core left them: both must hold when memory grows, for text that is not ASCII, and
// across calls that alternate valid and refused receipts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateReceipt, digest } from '../../dist/lib/wasm.js';
import { repoRoot } from './helpers.mjs';

const dir = join(repoRoot, 'tests/vectors/receipts');
const valid = readFileSync(join(dir, 'valid/interop-retained.json'));
const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
const refused = cases.find((c) => !c.valid && c.code === 'invalid-digest');

test('validateReceipt keeps answering after wasm memory grows', () => {
  const before = validateReceipt(readFileSync(join(dir, refused.file)));
  // A 32 MiB string passed into the core grows its memory (every view of it made before is
  // then detached).
  const big = JSON.stringify('x'.repeat(32 * 1024 * 1024));
  assert.equal(digest('value', big).ok, true);
  assert.deepEqual(validateReceipt(readFileSync(join(dir, refused.file))), before);
  assert.equal(validateReceipt(valid).ok, true);
  assert.equal(validateReceipt(valid.toString('utf8')).receipt.ownership.disposition, 'retained');
});

test('a refusal that names a key outside ASCII reads back whole', () => {
  const got = validateReceipt('{"é\u{1F600}":1}');
  assert.deepEqual(got, {
    ok: false,
    error: { code: 'unknown-field', path: '$["é\u{1F600}"]', message: '$["é\u{1F600}"] is not a field of the contract' },
  });
});

test('valid and refused receipts in turn each get their own answer', () => {
  const bad = cases.filter((c) => !c.valid).map((c) => [c, readFileSync(join(dir, c.file))]);
  for (const [c, bytes] of bad) {
    assert.equal(validateReceipt(valid).ok, true);
    const got = validateReceipt(bytes);
    assert.deepEqual(got.error, { code: c.code, path: c.path, message: c.message }, c.file);
  }
});

test('text longer than the contract allows is refused by its size, as bytes are', () => {
  const long = `{"x":"${'é'.repeat(20000)}"}`;
  const fromText = validateReceipt(long);
  assert.equal(fromText.error.code, 'too-large');
  // The text is cut at 16 KiB + 1 code units before encoding, as before this loader kept one buffer.
  assert.equal(fromText.error.message, `the receipt is ${Buffer.byteLength(long.slice(0, 16 * 1024 + 1))} bytes; at most 16384 are accepted`);
});

test('a gate or resume result is refused with the hint to take its deferredReceipt, however the key is written', () => {
  const receipt = JSON.parse(valid.toString('utf8'));
  const hint = ': this is a gate or resume result, not a receipt; its deferredReceipt is the receipt (jq -c .deferredReceipt)';
  const plain = JSON.stringify({ status: 'deferred', deferredReceipt: receipt });
  const escaped = plain.replace('"deferredReceipt"', '"deferred\\u0052eceipt"');
  for (const text of [plain, escaped, Buffer.from(escaped)]) {
    const got = validateReceipt(text);
    assert.equal(got.error.code, 'unknown-field');
    assert.ok(got.error.message.endsWith(hint), got.error.message);
  }
  // Another unknown field gets no hint.
  assert.equal(validateReceipt(JSON.stringify({ ...receipt, note: 'x' })).error.message, '$.note is not a field of the contract');
});
