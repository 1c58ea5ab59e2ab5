// Every file or stdin the CLI reads is bounded, and hostile shapes end in a coded error (exit
// 2), never in unbounded memory or internal-error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rateLimitBody } from '../support/fake-github.mjs';
import { deferral } from './helpers.mjs';

const dir = mkdtempSync(join(tmpdir(), 'deferral-bounds-'));
const READY = join(dir, 'ready.json');
writeFileSync(READY, JSON.stringify(rateLimitBody()));

test('validate /dev/zero stops reading and answers too-large', () => {
  const run = deferral(['validate', '/dev/zero'], { timeout: 20_000 });
  assert.equal(run.status, 2, run.stderr);
  assert.equal(run.json.status, 'invalid');
  assert.equal(run.json.error.code, 'too-large');
});

test('a plan, rate state or observed body past the limit is too-large (exit 2)', () => {
  for (const args of [
    ['gate', '--rate-state', '/dev/zero', '--scope', 's'],
    ['gate', '--rate-state', READY, '--scope', 's', '--plan', '/dev/zero'],
    ['observe', '--ledger-file', join(dir, 'l.json'), '--status', '200', '--body', '/dev/zero'],
  ]) {
    const run = deferral(args, { timeout: 20_000 });
    assert.equal(run.status, 2, `${args.join(' ')}: ${run.stdout}`);
    assert.equal(run.json.error.code, 'too-large', args.join(' '));
  }
});

test('a ledger nested 100,000 deep is invalid-ledger, exit 2', () => {
  const ledger = join(dir, 'deep.json');
  writeFileSync(ledger, `${'['.repeat(100_000)}${']'.repeat(100_000)}`);
  const run = deferral(['gate', '--rate-state', READY, '--scope', 's', '--ledger-file', ledger]);
  assert.equal(run.status, 2, run.stdout);
  assert.equal(run.json.error.code, 'invalid-ledger');
});
