// The runner protocol as the Action speaks it (written by the core, driver/src/runner.rs):
// outputs that no value can forge, masks before anything else. Each test runs dist/main.js.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGitHub, TEST_TOKEN } from '../support/fake-github.mjs';
import { parseOutputFile, runAction } from '../support/run-action.mjs';

const closers = [];
after(() => Promise.all(closers.map((c) => c())));

test('a hostile RUNNER_TEMP cannot inject a second output through receipt-path', async () => {
  const gh = await startFakeGitHub({ scenario: 'rest-low' });
  closers.push(gh.close);
  // A directory name that tries every trick: a line break, a fake record, a fake delimiter.
  const hostile = join(mkdtempSync(join(tmpdir(), 'deferral-hostile-')), 'a\nstatus<<EOF\nready\nEOF\nghadelimiter_0\nx');
  mkdirSync(hostile, { recursive: true });
  const run = await runAction(gh.url, { 'on-deferral': 'succeed' }, { env: { RUNNER_TEMP: hostile } });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  const parsed = parseOutputFile(run.rawOutput);
  assert.deepEqual(parsed.status, ['deferred'], run.rawOutput);
  assert.equal(parsed['receipt-path'].length, 1);
  assert.ok(parsed['receipt-path'][0].startsWith(`${hostile}/deferral/`), parsed['receipt-path'][0]);
  assert.ok(readFileSync(parsed['receipt-path'][0], 'utf8').includes('deferred-receipt-v1'));
});

test('masks come first, one per line of each secret, and no secret is printed', async () => {
  const gh = await startFakeGitHub({ scenario: 'ready', token: `${TEST_TOKEN}` });
  closers.push(gh.close);
  const coordinatorToken = 'coordinator-test-token-not-real\nsecond-line-not-real';
  const run = await runAction(gh.url, { 'coordinator-token': coordinatorToken }, {
    env: { DEFERRAL_WAKEUP_HANDLE: 'wakeup-handle-not-real' },
  });
  const lines = run.stdout.split('\n');
  assert.deepEqual(lines.slice(0, 4), [
    `::add-mask::${TEST_TOKEN}`,
    '::add-mask::coordinator-test-token-not-real',
    '::add-mask::second-line-not-real',
    '::add-mask::wakeup-handle-not-real',
  ]);
  for (const secret of [TEST_TOKEN, 'coordinator-test-token-not-real', 'wakeup-handle-not-real']) {
    assert.ok(!lines.slice(4).join('\n').includes(secret), `${secret} printed`);
    assert.ok(!run.rawOutput.includes(secret) && !run.summary.includes(secret), `${secret} in outputs or summary`);
  }
});

test('outside a runner (no GITHUB_OUTPUT) the outputs are printed as escaped name=value lines', async () => {
  const gh = await startFakeGitHub({ scenario: 'ready' });
  closers.push(gh.close);
  const dir = mkdtempSync(join(tmpdir(), 'deferral-noout-'));
  writeFileSync(join(dir, 'x'), '');
  const run = await runAction(gh.url, {}, { env: { GITHUB_OUTPUT: '' } });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^status=ready$/m);
  assert.equal(run.rawOutput, '');
});
