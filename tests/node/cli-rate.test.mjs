// Black-box tests of deferral gate, resume, explain and observe: outputs and exact exit codes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGitHub, rateLimitBody, TEST_TOKEN } from '../support/fake-github.mjs';
import { spawnSync } from 'node:child_process';
import { runCli } from '../support/run-action.mjs';
import { cliPath } from './helpers.mjs';
import { dueReceipt, makeReceipt, retain } from '../support/receipts.mjs';

const dir = mkdtempSync(join(tmpdir(), 'deferral-cli-'));
const file = (name, value) => {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
};
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));

const READY = file('ready.json', rateLimitBody());
const LOW = file('low.json', rateLimitBody({ core: [100, 1200] }));
const SCOPE = 'nightly-labels';
const firstLine = (run) => JSON.parse(run.stdout.split('\n')[0]);

test('gate --rate-state: ready exits 0 with one JSON line', async () => {
  const run = await runCli(['gate', '--rate-state', READY, '--scope', SCOPE]);
  assert.equal(run.status, 0);
  assert.equal(run.stdout.trim().split('\n').length, 1);
  assert.equal(run.json.status, 'ready');
  assert.equal(run.json.rest.remaining, 4990);
  assert.ok(!run.stdout.includes(SCOPE), 'the scope text is never printed');
});

test('gate deferred: exit 6 and exactly one JSON line carrying deferredReceipt', async () => {
  const run = await runCli(['gate', '--rate-state', LOW, '--scope', SCOPE, '--request', '{"labels":["bug"]}']);
  assert.equal(run.status, 6);
  const result = JSON.parse(run.stdout);
  assert.equal(run.stdout.split('\n').filter(Boolean).length, 1);
  assert.equal(result.status, 'deferred');
  assert.equal(result.reason, 'rest-reserve');
  assert.deepEqual(Object.keys(result.deferredReceipt), ['schema', 'version', 'status', 'reason', 'issued_at_ms', 'resume_after_ms', 'resume_by_ms', 'bindings', 'ownership', 'fresh_approval_required']);
  assert.equal(run.stderr, '', 'no verdict when stderr is not a terminal');
  const check = await runCli(['validate', '-'], { input: JSON.stringify(result.deferredReceipt) });
  assert.equal(check.status, 0);
  assert.ok(!run.stdout.includes('bug'));
});

test('gate blocked (plan never fits) exits 5; invalid input exits 2', async () => {
  const plan = file('plan.json', { rest: [{ method: 'GET', route: '/repos/{o}/{r}/issues', count: 4600 }] });
  const blocked = await runCli(['gate', '--rate-state', READY, '--plan', plan]);
  assert.equal(blocked.status, 5);
  assert.equal(blocked.json.code, 'plan-exceeds-window');
  const badReserve = await runCli(['gate', '--rate-state', READY, '--rest-reserve', 'lots']);
  assert.equal(badReserve.status, 2);
  assert.equal(badReserve.json.status, 'error');
  const badPlan = await runCli(['gate', '--rate-state', READY, '--plan', '{"rest":[{"method":"FETCH","route":"/x"}]}']);
  assert.equal(badPlan.status, 2);
  assert.equal(badPlan.json.code, 'invalid-plan');
  const unknownFlag = await runCli(['gate', '--rate-state', READY, '--reserve', '5']);
  assert.equal(unknownFlag.status, 2);
  const badState = await runCli(['gate', '--rate-state', file('bad.json', '{"rate":{}}')]);
  assert.equal(badState.status, 2);
  assert.equal(badState.json.error.code, 'invalid-rate-state');
});

test('gate live: GITHUB_TOKEN and GITHUB_API_URL, exactly one request; 3 for auth, 4 for transport', async () => {
  const gh = await startFakeGitHub({ scenario: 'ready' });
  servers.push(gh);
  const ok = await runCli(['gate'], { env: { GITHUB_TOKEN: TEST_TOKEN, GITHUB_API_URL: gh.url } });
  assert.equal(ok.status, 0, ok.stdout);
  assert.equal(gh.requests.length, 1);
  const viaGh = await runCli(['gate', '--api-url', gh.url], { env: { GH_TOKEN: TEST_TOKEN } });
  assert.equal(viaGh.status, 0);
  const noToken = await runCli(['gate', '--api-url', gh.url]);
  assert.equal(noToken.status, 3);
  assert.equal(noToken.json.error.code, 'missing-token');
  const wrong = await runCli(['gate', '--api-url', gh.url], { env: { GITHUB_TOKEN: 'test-token-not-real-wrong' } });
  assert.equal(wrong.status, 3);
  assert.equal(wrong.json.error.code, 'bad-credentials');
  assert.ok(!wrong.stdout.includes('test-token-not-real'));
  gh.setScenario('server-error');
  const bad = await runCli(['gate', '--api-url', gh.url], { env: { GITHUB_TOKEN: TEST_TOKEN } });
  assert.equal(bad.status, 4);
  const refused = await runCli(['gate', '--api-url', 'http://127.0.0.1:9'], { env: { GITHUB_TOKEN: TEST_TOKEN } });
  assert.equal(refused.status, 4);
  assert.equal(refused.json.error.code, 'transport-error');
  gh.setScenario('secondary-retry-after');
  const secondary = await runCli(['gate', '--api-url', gh.url], { env: { GITHUB_TOKEN: TEST_TOKEN } });
  assert.equal(secondary.status, 6);
  assert.equal(firstLine(secondary).reason, 'provider-secondary-limit');
});

test('resume: ready 0, deferred again 6 with one JSON line, blocked 5, invalid receipt 2', async () => {
  const receipt = file('due.json', dueReceipt({ scope: SCOPE }));
  const ready = await runCli(['resume', '--receipt', receipt, '--rate-state', READY, '--scope', SCOPE, '--approval', 'granted']);
  assert.equal(ready.status, 0, ready.stdout);
  assert.equal(ready.json.status, 'ready');
  assert.equal(ready.json.ownership, 'handoff');
  const again = await runCli(['resume', '--receipt', '-', '--rate-state', LOW, '--scope', SCOPE, '--approval', 'granted'], { input: readFileSync(receipt) });
  assert.equal(again.status, 6);
  assert.equal(JSON.parse(again.stdout).status, 'deferred', 'one JSON line');
  assert.equal(again.json.deferredReceipt.version, 'deferred-receipt-v1');
  const mismatch = await runCli(['resume', '--receipt', receipt, '--rate-state', READY, '--scope', 'other', '--approval', 'granted']);
  assert.equal(mismatch.status, 5);
  assert.equal(mismatch.json.code, 'binding-mismatch');
  assert.equal(mismatch.json.field, 'scope_digest');
  const approval = await runCli(['resume', '--receipt', receipt, '--rate-state', READY, '--scope', SCOPE]);
  assert.equal(approval.status, 5);
  assert.equal(approval.json.code, 'approval-required');
  const invalid = await runCli(['resume', '--receipt', file('invalid.json', '{"schema":1}'), '--rate-state', READY]);
  assert.equal(invalid.status, 2);
  assert.equal(invalid.json.error.code, 'invalid-receipt');
  const now = Date.now();
  const early = await runCli(['resume', '--receipt', file('early.json', makeReceipt({ issuedMs: now, resetMs: now + 600_000, scope: SCOPE })), '--scope', SCOPE]);
  assert.equal(early.status, 5, 'decided offline: no token was needed');
  assert.equal(early.json.code, 'not-yet-due');
});

test('resume of a retained receipt needs the wake-up handle (flag or DEFERRAL_WAKEUP_HANDLE)', async () => {
  const handle = 'wakeup-handle-for-tests-0123456789';
  const receipt = file('retained.json', retain(dueReceipt({ scope: SCOPE, freshApproval: false }), handle));
  const base = ['resume', '--receipt', receipt, '--rate-state', READY, '--scope', SCOPE];
  const none = await runCli(base);
  assert.equal(none.status, 5);
  assert.equal(none.json.code, 'claim-unavailable');
  const wrong = await runCli([...base, '--wakeup-handle', 'not-the-handle']);
  assert.equal(wrong.json.code, 'claim-unavailable');
  const flag = await runCli([...base, '--wakeup-handle', handle]);
  assert.equal(flag.status, 0, flag.stdout);
  assert.equal(flag.json.ownership, 'retained');
  assert.ok(!flag.stdout.includes(handle));
  const env = await runCli(base, { env: { DEFERRAL_WAKEUP_HANDLE: handle } });
  assert.equal(env.status, 0);
});

test('explain: reason, UTC and local times, how long until due, ownership; 2 when invalid', async () => {
  const now = Date.now();
  const receipt = file('explain.json', makeReceipt({ issuedMs: now, resetMs: now + 3_600_000, scope: SCOPE }));
  const run = await runCli(['explain', receipt], { env: { TZ: 'America/New_York' } });
  assert.equal(run.status, 0);
  assert.equal(run.json.state, 'not-yet-due');
  assert.equal(run.json.reason, 'rest-reserve');
  assert.match(run.json.resumeAfter.utc, /Z$/);
  assert.match(run.json.resumeAfter.local, / -0[45]:00$/);
  assert.ok(run.json.dueInMs > 3_600_000 && run.json.dueInMs < 3_700_000);
  assert.equal(run.json.ownership.disposition, 'handoff');
  assert.match(run.json.explanation, /a fresh attempt may start in 1h 1m/);
  const text = await runCli(['explain', receipt, '--text']);
  assert.equal(JSON.parse(text.stdout).state, 'not-yet-due', 'stdout keeps its one JSON line');
  assert.match(text.stderr, /^Deferred because the REST API quota/);
  const quiet = await runCli(['explain', receipt, '--text', '--quiet']);
  assert.equal(quiet.stderr, '');
  const invalid = await runCli(['explain', file('bad-receipt.json', '[]')]);
  assert.equal(invalid.status, 2);
  assert.equal(invalid.json.error.code, 'not-an-object');
});

test('observe records a secondary strike that a later gate honours', async () => {
  const ledger = join(dir, 'ledger.json');
  // Later than the saved rate state's reset, so the ledger's window is the current one.
  const RESET = Math.floor(Date.now() / 1000 + 4000);
  const response = file('secondary.http', [
    'HTTP/2 403',
    'date: ' + new Date().toUTCString(),
    'retry-after: 300',
    'x-ratelimit-limit: 5000',
    'x-ratelimit-remaining: 4321',
    'x-ratelimit-reset: ' + RESET,
    'x-ratelimit-resource: core',
    '',
    '{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}',
  ].join('\r\n'));
  const observed = await runCli(['observe', '--ledger-file', ledger, '--response', response]);
  assert.equal(observed.status, 0, observed.stdout);
  assert.equal(observed.json.kind, 'secondary');
  assert.equal(observed.json.remaining, 4321);
  assert.ok(Date.parse(observed.json.secondaryHoldUntil) >= Date.now() + 290_000);
  const written = JSON.parse(readFileSync(ledger, 'utf8'));
  assert.equal(written.version, 'deferral-ledger-v1');
  assert.equal(written.resources.core.remaining, 4321);
  const gate = await runCli(['gate', '--rate-state', READY, '--ledger-file', ledger]);
  assert.equal(gate.status, 6);
  assert.equal(firstLine(gate).reason, 'provider-secondary-limit');
  assert.equal(firstLine(gate).rest.remaining, 4321, 'the ledger window (the later reset) is merged');
  const window = ['--status', '200', '--header', 'x-ratelimit-limit: 5000', '--header', 'x-ratelimit-remaining: 4000', '--header', `x-ratelimit-reset: ${RESET}`];
  // Without x-ratelimit-resource or --path the bucket is unknown (it may be search): not core.
  const unnamed = await runCli(['observe', '--ledger-file', ledger, ...window]);
  assert.equal(unnamed.json.kind, 'not-rate-limited');
  assert.equal(JSON.parse(readFileSync(ledger, 'utf8')).resources.core.remaining, 4321);
  const headers = await runCli(['observe', '--ledger-file', ledger, ...window, '--header', 'x-ratelimit-resource: core']);
  assert.equal(headers.json.kind, 'not-rate-limited');
  assert.equal(JSON.parse(readFileSync(ledger, 'utf8')).resources.core.remaining, 4000);
  const missing = await runCli(['observe', '--response', response]);
  assert.equal(missing.status, 2);
  const corrupt = await runCli(['observe', '--ledger-file', file('corrupt.json', '{"version":"deferral-ledger-v9"}'), '--response', response]);
  assert.equal(corrupt.status, 2);
  assert.equal(corrupt.json.error.code, 'invalid-ledger');
});

test('--verdict prints the human verdict on stderr, stdout stays one JSON line; --quiet wins', async () => {
  const run = await runCli(['gate', '--rate-state', LOW, '--scope', SCOPE, '--verdict'], { env: { TZ: 'Asia/Tokyo' } });
  assert.equal(run.status, 6);
  assert.equal(JSON.parse(run.stdout).status, 'deferred');
  assert.match(run.stderr, /^deferral: deferred, reason rest-reserve/);
  assert.match(run.stderr, /REST\s+100\s+500\s+0\s+no/);
  assert.match(run.stderr, /resume after \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+09:00 \(\d{4}-.*Z\)/);
  const quiet = await runCli(['gate', '--rate-state', LOW, '--scope', SCOPE, '--verdict', '--quiet']);
  assert.equal(quiet.stderr, '');
});

test('on a terminal, stderr gets the verdict without asking', { skip: !hasScript() }, () => {
  const out = join(dir, 'tty-stdout.json');
  const cmd = `'${process.execPath}' '${cliPath}' gate --rate-state '${LOW}' --scope s > '${out}'`;
  const run = spawnSync('script', ['-qec', cmd, '/dev/null'], { encoding: 'utf8' });
  assert.equal(run.status, 6, run.stdout);
  assert.match(run.stdout, /deferral: deferred, reason rest-reserve/);
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).status, 'deferred');
});

function hasScript() {
  return spawnSync('script', ['--version']).status === 0;
}

test('deferral without a command answers one JSON error line, usage on stderr', async () => {
  const run = await runCli([]);
  assert.equal(run.status, 2);
  assert.equal(JSON.parse(run.stdout).error.code, 'missing-command');
  assert.match(run.stderr, /^Usage: deferral COMMAND/);
});

test('deferral gate crosses into the wasm core at most twice', async () => {
  const run = await runCli(['gate', '--rate-state', LOW, '--scope', SCOPE], { env: { DEFERRAL_TRACE_CORE: '1' } });
  assert.equal(run.status, 6);
  const calls = run.stderr.split('\n').filter((l) => l.startsWith('deferral-core-call '));
  assert.deepEqual(calls, ['deferral-core-call run', 'deferral-core-call run']);
});

test('a whole gate result given as a receipt is refused with a pointer to its deferredReceipt', async () => {
  const gate = await runCli(['gate', '--rate-state', LOW, '--scope', SCOPE]);
  const result = file('gate-result.json', gate.stdout);
  const hint = /is not a field of the contract: this is a gate or resume result, not a receipt; its deferredReceipt is the receipt/;
  for (const args of [['validate', result], ['explain', result]]) {
    const run = await runCli(args);
    assert.equal(run.status, 2, args[0]);
    assert.equal(run.json.error.code, 'unknown-field', 'the contract code is kept');
    assert.match(run.json.error.message, hint, args[0]);
  }
  const resume = await runCli(['resume', '--receipt', result, '--rate-state', READY, '--scope', SCOPE]);
  assert.equal(resume.status, 2);
  assert.equal(resume.json.code, 'invalid-receipt');
  assert.match(resume.json.error.message, hint);
  const receipt = file('gate-receipt.json', JSON.stringify(gate.json.deferredReceipt));
  assert.equal((await runCli(['validate', receipt])).status, 0, 'its deferredReceipt is the receipt');
});
