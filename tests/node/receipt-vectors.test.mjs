// The shared receipt vectors through the committed dist/: the wasm core, the CLI, and a JSON
// Schema validator (Ajv, draft 2020-12) must agree with the expected verdicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { validateReceipt } from '../../dist/lib/wasm.js';
import { repoRoot } from './helpers.mjs';

const dir = join(repoRoot, 'tests/vectors/receipts');
const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
const schema = JSON.parse(readFileSync(join(repoRoot, 'docs/deferred-receipt-v1.schema.json'), 'utf8'));
const checkSchema = new Ajv2020({ strict: true, allErrors: false }).compile(schema);

test('the wasm core gives every vector its verdict, code, path and exact message', () => {
  for (const c of cases) {
    const got = validateReceipt(readFileSync(join(dir, c.file)));
    assert.equal(got.ok, c.valid, `${c.file}: ${JSON.stringify(got.error)}`);
    if (!c.valid) assert.deepEqual(got.error, { code: c.code, path: c.path, message: c.message }, c.file);
  }
});

test('the JSON Schema agrees, except where a schema cannot see the rule', () => {
  let blind = 0;
  for (const c of cases) {
    let verdict;
    try {
      verdict = checkSchema(JSON.parse(readFileSync(join(dir, c.file), 'utf8'))) ? 'valid' : 'invalid';
    } catch {
      verdict = 'invalid'; // JSON.parse refused it: not even a document
    }
    assert.equal(verdict, c.schema, `${c.file}: schema said ${verdict}`);
    if (c.schema !== (c.valid ? 'valid' : 'invalid')) {
      assert.ok(c.schema_cannot_see, `${c.file} disagrees without a documented reason`);
      blind++;
    }
  }
  assert.ok(blind > 0 && blind < cases.length / 4);
});

test('deferral validate prints one JSON line and exits 0 or 2 for every vector', () => {
  // One process per file is slow; a sample of each kind keeps this honest and fast.
  const sample = cases.filter((_, i) => i % 4 === 0);
  for (const c of sample) {
    const run = spawnSync(process.execPath, [join(repoRoot, 'dist/cli.js'), 'validate', join(dir, c.file)], { encoding: 'utf8' });
    const lines = run.stdout.trim().split('\n');
    assert.equal(lines.length, 1, c.file);
    const out = JSON.parse(lines[0]);
    assert.equal(run.status, c.valid ? 0 : 2, c.file);
    assert.equal(out.status, c.valid ? 'valid' : 'invalid');
    if (!c.valid) assert.deepEqual(out.error, { code: c.code, path: c.path, message: c.message }, c.file);
  }
});

test('deferral validate reads standard input with -', () => {
  const input = readFileSync(join(dir, 'valid/handoff.json'));
  const run = spawnSync(process.execPath, [join(repoRoot, 'dist/cli.js'), 'validate', '-'], { input });
  assert.equal(run.status, 0);
  assert.equal(JSON.parse(run.stdout).receipt.ownership.disposition, 'handoff');
});

test('validateReceipt accepts a parsed object, text or bytes, and agrees on every vector', async () => {
  const { validateReceipt } = await import('../../dist/lib/wasm.js');
  for (const c of cases) {
    const bytes = readFileSync(join(dir, c.file));
    let object;
    try { object = JSON.parse(bytes.toString('utf8')); } catch { continue; }
    const fromBytes = validateReceipt(bytes);
    assert.equal(fromBytes.ok, c.valid, c.file);
    if (Buffer.from(bytes.toString('utf8')).equals(bytes)) { // text cannot hold invalid UTF-8
      const fromText = validateReceipt(bytes.toString('utf8'));
      assert.deepEqual(fromText.ok ? fromText.receipt : fromText.error, fromBytes.ok ? fromBytes.receipt : fromBytes.error, c.file);
    }
    // A parsed object has lost duplicate keys and number spellings: only those vectors differ.
    if (c.code !== 'duplicate-field' && c.code !== 'malformed-json' && c.code !== 'invalid-time' && c.code !== 'unsupported-version' && c.code !== 'too-large') {
      const fromObject = validateReceipt(object);
      assert.equal(fromObject.ok, c.valid, c.file);
      if (c.valid) assert.deepEqual(fromObject.receipt, fromBytes.receipt, c.file);
      else assert.equal(fromObject.error.code, c.code, c.file);
    }
  }
});
