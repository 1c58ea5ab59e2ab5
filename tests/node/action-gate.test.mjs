// Black-box runs of the built Action entry (dist/main.js) in gate mode against a loopback API.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startFakeGitHub, TEST_TOKEN } from '../support/fake-github.mjs';
import { runAction, TEST_REPOSITORY, parseOutputFile } from '../support/run-action.mjs';
import { validateReceipt } from '../../dist/lib/wasm.js';

const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));
async function api(scenario) {
  const s = await startFakeGitHub({ scenario });
  servers.push(s);
  return s;
}

/** Nothing the run wrote may contain the token or the repository name (the mask command aside). */
function assertNoLeak(run) {
  const stdout = run.stdout.split('\n').filter((l) => !l.startsWith('::add-mask::')).join('\n');
  const receiptFile = run.outputs['receipt-path'] ? readFileSync(run.outputs['receipt-path'], 'utf8') : '';
  for (const [where, text] of Object.entries({ stdout, stderr: run.stderr, outputs: run.rawOutput, summary: run.summary, receiptFile })) {
    assert.ok(!text.includes(TEST_TOKEN), `${where} shows the token`);
    assert.ok(!text.includes(TEST_REPOSITORY), `${where} shows the repository`);
    assert.ok(!text.includes('octo-secret'), `${where} shows part of the repository name`);
  }
}

function assertValidReceipt(text) {
  const checked = validateReceipt(text);
  assert.ok(checked.ok, JSON.stringify(checked.error));
  return checked.receipt;
}

test('ready: one request, status ready, remaining figures, step succeeds', async () => {
  const gh = await api('ready');
  const run = await runAction(gh.url);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.equal(gh.requests.length, 1);
  assert.equal(gh.requests[0].url, '/rate_limit');
  assert.equal(gh.requests[0].authorization, `Bearer ${TEST_TOKEN}`);
  assert.equal(run.outputs.status, 'ready');
  assert.equal(run.outputs['rest-remaining'], '4990');
  assert.equal(run.outputs['graphql-remaining'], '4990');
  assert.equal(run.outputs['deferred-receipt'], '');
  assert.equal(run.outputs['receipt-path'], '');
  assert.ok(run.stdout.startsWith(`::add-mask::${TEST_TOKEN}\n`), 'the token is masked before anything else prints');
  assert.match(run.summary, /\| REST \(core\) \| 5000 \| 4990 \| 500 \| 0 \|/);
  assertNoLeak(run);
  run.cleanup();
});

test('REST below its reserve: deferred, receipt output and file, step fails by default', async () => {
  const gh = await api('rest-low');
  const before = Date.now();
  const run = await runAction(gh.url);
  assert.equal(run.status, 1, 'on-deferral: fail is the default');
  assert.equal(gh.requests.length, 1);
  assert.equal(run.outputs.status, 'deferred');
  assert.equal(run.outputs.reason, 'rest-reserve');
  const receipt = assertValidReceipt(run.outputs['deferred-receipt']);
  assert.equal(receipt.ownership.disposition, 'handoff');
  assert.equal(receipt.fresh_approval_required, true);
  assert.equal(run.outputs['fresh-approval-required'], 'true');
  assert.deepEqual(JSON.parse(readFileSync(run.outputs['receipt-path'], 'utf8')), JSON.parse(run.outputs['deferred-receipt']));
  assert.ok(run.outputs['receipt-path'].startsWith(run.tempDir), 'the receipt file is under RUNNER_TEMP');
  // Reset in 1800 s, plus the 60 s buffer, plus 0..30 s of jitter.
  const after = Date.parse(run.outputs['resume-after']);
  assert.ok(after >= before + 1_858_000 && after <= Date.now() + 1_891_000, run.outputs['resume-after']);
  assert.equal(Date.parse(run.outputs['resume-by']) - after, 6 * 3_600_000);
  assert.equal(receipt.resume_after_ms, after);
  assert.equal(run.outputs['rest-remaining'], '120');
  assert.match(run.stdout, /^::error title=Deferral%3A deferred::Deferred \(rest-reserve\)/m);
  assert.match(run.summary, /\| reason \| `rest-reserve` \|/);
  assert.match(run.summary, /\| resume after \| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \|/);
  assertNoLeak(run);
  run.cleanup();
});

test('GraphQL below its reserve, on-deferral succeed: deferred, step succeeds with a warning', async () => {
  const gh = await api('graphql-low');
  const run = await runAction(gh.url, { 'on-deferral': 'succeed' });
  assert.equal(run.status, 0);
  assert.equal(gh.requests.length, 1);
  assert.equal(run.outputs.status, 'deferred');
  assert.equal(run.outputs.reason, 'graphql-reserve');
  assert.equal(run.outputs['graphql-remaining'], '10');
  assert.match(run.stdout, /^::warning title=Deferral%3A deferred::/m);
  assertNoLeak(run);
  run.cleanup();
});

test('both below: the later reset binds; fresh-approval never is written into the receipt', async () => {
  const gh = await api('both-low');
  const run = await runAction(gh.url, { 'fresh-approval': 'never', 'on-deferral': 'succeed' });
  assert.equal(run.outputs.reason, 'graphql-reserve');
  assert.equal(assertValidReceipt(run.outputs['deferred-receipt']).fresh_approval_required, false);
  assert.equal(run.outputs['fresh-approval-required'], 'false');
  run.cleanup();
});

test('secondary limit on /rate_limit with retry-after: deferred provider-secondary-limit', async () => {
  const gh = await api('secondary-retry-after');
  const before = Date.now();
  const run = await runAction(gh.url, { 'on-deferral': 'succeed' });
  assert.equal(gh.requests.length, 1, 'no retry');
  assert.equal(run.outputs.status, 'deferred');
  assert.equal(run.outputs.reason, 'provider-secondary-limit');
  const after = Date.parse(run.outputs['resume-after']);
  // retry-after 120 s, plus the 60 s buffer, plus 0..30 s of jitter.
  assert.ok(after >= before + 180_000 && after <= Date.now() + 210_000, run.outputs['resume-after']);
  assert.equal(run.outputs['rest-remaining'], '');
  assertNoLeak(run);
  run.cleanup();
});

test('secondary limit without retry-after: at least a minute', async () => {
  const gh = await api('secondary-no-retry-after');
  const before = Date.now();
  const run = await runAction(gh.url, { 'on-deferral': 'succeed' });
  assert.equal(gh.requests.length, 1);
  assert.equal(run.outputs.reason, 'provider-secondary-limit');
  const after = Date.parse(run.outputs['resume-after']);
  assert.ok(after >= before + 120_000 && after <= Date.now() + 150_000, run.outputs['resume-after']);
  run.cleanup();
});

test('GitHub Enterprise Server 404 "Rate limiting is not enabled": ready (unlimited)', async () => {
  const gh = await api('ghes-404');
  const run = await runAction(`${gh.url}/api/v3`);
  assert.equal(run.status, 0, run.stdout);
  assert.equal(gh.requests.length, 1);
  assert.equal(gh.requests[0].url, '/api/v3/rate_limit');
  assert.equal(run.outputs.status, 'ready');
  assert.match(run.summary, /does not enforce primary rate limits/);
  run.cleanup();
});

test('401: error naming the credential problem, never a deferral', async () => {
  const gh = await api('ready');
  const run = await runAction(gh.url, {}, { token: 'test-token-not-real-but-wrong' });
  assert.equal(run.status, 1);
  assert.equal(gh.requests.length, 1);
  assert.equal(run.outputs.status, 'error');
  assert.equal(run.outputs['deferred-receipt'], '');
  assert.match(run.stdout, /::error title=Deferral%3A error::Error \(bad-credentials\): GitHub refused the token \(401\)/);
  assert.ok(!run.stdout.replace(/^::add-mask::.*$/m, '').includes('test-token-not-real'));
  run.cleanup();
});

test('403 that is not a rate limit: error (forbidden)', async () => {
  const gh = await api('forbidden');
  const run = await runAction(gh.url);
  assert.equal(run.status, 1);
  assert.equal(run.outputs.status, 'error');
  assert.match(run.stdout, /Error \(forbidden\)/);
  run.cleanup();
});

test('refused connection: error, not a guess', async () => {
  // Port 1: nothing in the suite listens there and the kernel never hands it out for port 0, so
  // the connection is refused every time (a port bound, closed and reused could be taken by a
  // test running beside this one).
  const run = await runAction('http://127.0.0.1:1');
  assert.equal(run.status, 1);
  assert.equal(run.outputs.status, 'error');
  assert.match(run.stdout, /Error \(transport-error\): cannot reach the GitHub API: .*ECONNREFUSED/);
  run.cleanup();
});

test('empty inputs take the defaults of action.yml', async () => {
  const gh = await api('rest-low');
  const empty = { 'rest-reserve': '', 'graphql-reserve': '', plan: '', scope: '', request: '', receipt: '', 'resume-buffer': '', 'resume-window': '', 'fresh-approval': '', approval: '', 'on-deferral': '', 'ledger-file': '' };
  const withEmpty = await runAction(gh.url, empty);
  const without = await runAction(gh.url);
  const a = JSON.parse(withEmpty.outputs['deferred-receipt']);
  const b = JSON.parse(without.outputs['deferred-receipt']);
  assert.deepEqual(a.bindings, b.bindings);
  assert.equal(withEmpty.status, 1);
  withEmpty.cleanup();
  without.cleanup();
});

test('a plan is costed and bound; a plan that never fits is blocked', async () => {
  const gh = await api('github-token');
  const plan = JSON.stringify({ rest: [{ method: 'POST', route: '/repos/{owner}/{repo}/issues/{issue_number}/labels', count: 40 }] });
  const ok = await runAction(gh.url, { plan });
  assert.equal(ok.outputs.status, 'ready', ok.stdout);
  assert.match(ok.summary, /\| REST \(core\) \| 1000 \| 950 \| 100 \| 40 \|/);
  const huge = JSON.stringify({ rest: [{ method: 'GET', route: '/repos/{owner}/{repo}/issues', count: 950 }] });
  const blocked = await runAction(gh.url, { plan: huge });
  assert.equal(blocked.status, 1);
  assert.equal(blocked.outputs.status, 'blocked');
  assert.match(blocked.stdout, /Blocked \(plan-exceeds-window\)/);
  ok.cleanup();
  blocked.cleanup();
});

test('invalid input: error with a clear message and no request', async () => {
  const gh = await api('ready');
  const run = await runAction(gh.url, { 'resume-window': 'forever' });
  assert.equal(run.status, 1);
  assert.equal(run.outputs.status, 'error');
  assert.equal(gh.requests.length, 0);
  assert.match(run.stdout, /resume-window must be a duration/);
  run.cleanup();
});

test('a hostile multi-line token cannot forge workflow commands', async () => {
  const gh = await api('ready');
  const run = await runAction(gh.url, {}, { token: 'test-token-not-real\n::error::forged%0Aline' });
  assert.ok(!/^::error::forged/m.test(run.stdout), run.stdout);
  assert.equal(run.outputs.status, 'error');
  run.cleanup();
});

test('outputs are heredoc records whose delimiter is not in the value', async () => {
  const gh = await api('rest-low');
  const run = await runAction(gh.url, { 'on-deferral': 'succeed' });
  const names = Object.keys(parseOutputFile(run.rawOutput)).sort();
  assert.deepEqual(names, ['admission-id', 'cancellation-handle-path', 'deferral-id', 'deferred-receipt', 'fresh-approval-required', 'graphql-remaining', 'reason', 'receipt-path', 'resume-after', 'resume-by', 'rest-remaining', 'status'].sort());
  for (const [, delim] of run.rawOutput.matchAll(/^[a-z-]+<<(.+)$/gm)) assert.match(delim, /^ghadelimiter_[0-9a-f]{32}$/);
  run.cleanup();
});

test('the defaults action.yml declares are the defaults the entry applies', async () => {
  // Each input's declared default, passed explicitly, must bind and decide exactly as absent.
  const yml = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');
  const inputs = yml.slice(yml.indexOf('\ninputs:'), yml.indexOf('\noutputs:'));
  const declared = [...inputs.matchAll(/^ {2}([a-z-]+):\n(?:(?: {4}.*|\s*)\n)*? {4}default: (.*)$/gm)].map(([, name, value]) => [name, value.replace(/^'(.*)'$/, '$1')]);
  assert.ok(declared.length >= 13, `parsed ${declared.length} inputs`);
  const explicit = Object.fromEntries(declared.filter(([name]) => name !== 'token'));
  const gh = await api('rest-low');
  const a = await runAction(gh.url, explicit);
  const b = await runAction(gh.url);
  const ra = JSON.parse(a.outputs['deferred-receipt']);
  const rb = JSON.parse(b.outputs['deferred-receipt']);
  assert.deepEqual(ra.bindings, rb.bindings);
  assert.equal(ra.resume_by_ms - ra.resume_after_ms, rb.resume_by_ms - rb.resume_after_ms);
  assert.equal(a.status, b.status);
  // And every output action.yml declares is written.
  const declaredOutputs = [...yml.slice(yml.indexOf('\noutputs:'), yml.indexOf('\nruns:')).matchAll(/^ {2}([a-z-]+):$/gm)].map((m) => m[1]).sort();
  assert.deepEqual(Object.keys(a.outputs).sort(), declaredOutputs);
  a.cleanup();
  b.cleanup();
});

test('a gate run crosses into the wasm core at most twice', async () => {
  for (const scenario of ['ready', 'rest-low']) {
    const gh = await startFakeGitHub({ scenario });
    const run = await runAction(gh.url, { 'on-deferral': 'succeed' }, { env: { DEFERRAL_TRACE_CORE: '1' } });
    const calls = run.stderr.split('\n').filter((l) => l.startsWith('deferral-core-call '));
    assert.ok(calls.length >= 1 && calls.length <= 2, `${scenario}: ${calls.join(', ')}`);
    await gh.close();
    run.cleanup();
  }
});

test('the job summary draws a deferral as a Mermaid timeline: issued, reset, resume after, resume by', async () => {
  const gh = await startFakeGitHub({ scenario: 'rest-low' });
  const run = await runAction(gh.url, {});
  const block = /```mermaid\ntimeline\n([\s\S]*?)\n```/.exec(run.summary);
  assert.ok(block, run.summary);
  const label = (iso) => iso.replace('T', ' ').replace(/:(\d\d):(\d\d)\.\d+Z$/, 'h$1m$2s').replace(/ (\d\d)h/, ' $1h');
  const events = block[1].split('\n').slice(1).map((l) => l.trim().split(' : '));
  assert.deepEqual(events.map(([, what]) => what), ['issued (the gate stopped)', 'REST quota resets', 'resume after', 'resume by (the receipt expires)']);
  const times = events.map(([at]) => at);
  assert.deepEqual([...times].sort(), times, 'in time order');
  assert.equal(times[2], label(run.outputs['resume-after']));
  assert.equal(times[3], label(run.outputs['resume-by']));
  await gh.close();
  run.cleanup();
});
