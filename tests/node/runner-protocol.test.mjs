// The runner protocol written by hand in action/lib/runner.js: outputs that no value can forge,
// escaped annotations, masks first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setOutputs, mask, outputRecord } from '../../dist/lib/runner.js';
import { parseOutputFile } from '../support/run-action.mjs';

function outputsOf(values) {
  const file = join(mkdtempSync(join(tmpdir(), 'deferral-out-')), 'output');
  writeFileSync(file, '');
  setOutputs(values, { GITHUB_OUTPUT: file });
  return parseOutputFile(readFileSync(file, 'utf8'));
}

test('a hostile multi-line value cannot inject a second output', () => {
  const hostile = [
    'first line',
    'status=ready',
    'status<<EOF',
    'ready',
    'EOF',
    'ghadelimiter_00000000000000000000000000000000',
    'reason<<ghadelimiter_',
  ].join('\n');
  const parsed = outputsOf({ reason: hostile, status: 'deferred' });
  assert.deepEqual(Object.keys(parsed).sort(), ['reason', 'status']);
  assert.deepEqual(parsed.reason, [hostile]);
  assert.deepEqual(parsed.status, ['deferred']);
});

test('the delimiter never occurs in the value', () => {
  for (let i = 0; i < 50; i++) {
    const record = outputRecord('x', 'ghadelimiter_ab\nghadelimiter_');
    const delim = record.split('\n')[0].slice('x<<'.length);
    assert.ok(!'ghadelimiter_ab\nghadelimiter_'.includes(delim));
  }
  assert.throws(() => outputRecord('a\nb', 'v'));
});

test('masks each line of a multi-line secret', () => {
  const lines = [];
  mask('line-one\nline-two', (l) => lines.push(l));
  assert.deepEqual(lines, ['::add-mask::line-one\n', '::add-mask::line-two\n']);
});
