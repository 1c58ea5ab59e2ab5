// One admission across runners, black box: the built Action (dist/main.js) and CLI
// (dist/cli.js) with a durable port and a pool, against a loopback GitHub (GET /rate_limit in
// GitHub's documented shape) and a loopback stand-in of the port's pool side
// (tests/support/pool-port.mjs). Admitted, the gate proceeds with an admission id; refused, it
// defers to the pool's reset and the receipt is retained with the pool beside it; a port it
// cannot ask stops it. GitHub still gets exactly one request per gate.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, statSync, rmSync } from 'node:fs';
import { startFakeGitHub, TEST_TOKEN } from '../support/fake-github.mjs';
import { startPoolPort } from '../support/pool-port.mjs';
import { runAction, runCli } from '../support/run-action.mjs';
import { validateReceipt } from '../../dist/lib/wasm.js';

const LAUNCH = 'workflow-dispatch:octo/app/sync.yml@main';
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));
async function started(server) {
  servers.push(await server);
  return servers.at(-1);
}
// 3,000 comments: one gate fits above the 500 reserve in 4,990, two do not.
const PLAN = JSON.stringify({ rest: [{ method: 'POST', route: '/repos/{owner}/{repo}/issues/{issue_number}/comments', count: 3000 }] });
const inputs = (port, extra = {}) => ({
  plan: PLAN, scope: 'nightly-comments', 'coordinator-url': port.url, 'coordinator-token': port.token,
  'coordinator-launch': LAUNCH, 'coordinator-pool': 'app-42', ...extra,
});
const admissions = (port) => port.requests.filter((r) => r.path === '/v1/admissions');

/** Nothing the run wrote may hold `secret` (the runner's mask command aside). */
function assertNotShown(run, secret, what) {
  const stdout = run.stdout.split('\n').filter((l) => !l.startsWith('::add-mask::')).join('\n');
  for (const [where, text] of Object.entries({ stdout, stderr: run.stderr, outputs: run.rawOutput ?? '', summary: run.summary ?? '' })) {
    assert.ok(!text.includes(secret), `${where} shows the ${what}`);
  }
}

test('the Action: admitted, then refused in the same pool: ready with an admission id, then deferred to the pool\'s reset and retained', async () => {
  const gh = await started(startFakeGitHub({ scenario: 'ready' }));
  const port = await started(startPoolPort());

  const first = await runAction(gh.url, inputs(port));
  assert.equal(first.status, 0, first.stdout);
  assert.equal(first.outputs.status, 'ready');
  assert.equal(first.outputs['admission-id'], '17');
  assert.equal(first.outputs['deferral-id'], '');
  assert.match(first.summary, /Admitted in pool `app-42` as admission `17`/);
  assert.equal(gh.requests.length, 1, 'GitHub gets exactly one request');
  const [asked] = admissions(port);
  assert.equal(asked.authorization, `Bearer ${port.token}`);
  const reset = asked.body.rate.rest.reset_ms;
  assert.deepEqual(asked.body.pool, 'app-42');
  assert.deepEqual(asked.body.cost, { rest: 3000, graphql: 0, content: 3000 });
  assert.deepEqual(Object.keys(asked.body.rate).sort(), ['graphql', 'observed_ms', 'rest']);
  assert.deepEqual({ ...asked.body.rate.rest, reset_ms: 0 }, { limit: 5000, remaining: 4990, reserve: 500, reset_ms: 0 });
  // Host time: GitHub's reset (50 minutes on, in the stand-in) less the clock offset from its
  // second-resolution date header.
  assert.ok(Math.abs(reset - (Date.now() + 3_000_000)) < 10_000, `${reset}`);
  assert.ok(Math.abs(asked.body.rate.observed_ms - Date.now()) < 60_000);
  assertNotShown(first, port.token, 'port token');
  assertNotShown(first, TEST_TOKEN, 'GitHub token');

  const second = await runAction(gh.url, inputs(port));
  assert.equal(second.status, 1, 'on-deferral: fail');
  assert.equal(second.outputs.status, 'deferred', second.stdout);
  assert.equal(second.outputs.reason, 'rest-reserve');
  assert.equal(second.outputs['admission-id'], '');
  assert.equal(gh.requests.length, 2, 'one GitHub request per gate');
  assert.equal(admissions(port).length, 2);
  const receipt = JSON.parse(second.outputs['deferred-receipt']);
  assert.equal(receipt.ownership.disposition, 'retained');
  // The pool's window: its reset (the same window) plus the 60 s buffer and at most 30 s of jitter.
  const after = receipt.resume_after_ms - reset;
  assert.ok(after >= 60_000 && after <= 90_000 + 1000, `${after}`);
  const [kept] = port.deferrals;
  assert.equal(kept.id, second.outputs['deferral-id']);
  assert.deepEqual([kept.body.pool, kept.body.launch], ['app-42', LAUNCH]);
  assert.deepEqual(kept.body.cost, { rest: 3000, graphql: 0, content: 3000 });
  assert.equal(kept.body.rate.rest.remaining, 4990, 'the rate the gate read, not the pool\'s');
  const handle = readFileSync(second.outputs['cancellation-handle-path'], 'utf8').trim();
  assert.equal(createHash('sha256').update(handle).digest('hex'), receipt.ownership.cancellation_digest);
  assert.match(second.summary, /\| pool \| `app-42` refused: `pool app-42: 3000 more rest would leave -1010, below the reserve of 500` \|/);
  assert.match(second.summary, /\| REST \(core\) \| 5000 \| 1990 \| 500 \| 3000 \|/);
  assertNotShown(second, handle, 'cancellation handle');
  first.cleanup();
  second.cleanup();
});

test('the Action: a port that cannot admit stops the gate; nothing is retained and no work is let through', async () => {
  const gh = await started(startFakeGitHub({ scenario: 'ready' }));
  const down = await runAction(gh.url, inputs({ url: 'http://127.0.0.1:1', token: 'test-port-token-not-real' }, { 'on-deferral': 'succeed' }));
  assert.equal(down.status, 1);
  assert.equal(down.outputs.status, 'error');
  assert.equal(down.outputs['deferred-receipt'], '');
  assert.match(down.stdout, /Error \(coordinator-failed\): the durable port did not admit the plan in pool app-42 \(port-unreachable: .*ECONNREFUSED/);
  assert.match(down.summary, /### Deferral: Error: the pool did not admit the work, so none of it ran/);

  const port = await started(startPoolPort({ token: 'the-port-expects-another-token' }));
  const wrong = await runAction(gh.url, inputs({ url: port.url, token: 'test-port-token-not-real' }));
  assert.equal(wrong.outputs.status, 'error');
  assert.match(wrong.stdout, /HTTP 401 unauthorized: missing or wrong bearer token/);
  assert.equal(port.deferrals.length, 0);
  assertNotShown(wrong, 'test-port-token-not-real', 'port token');

  const lying = await started(startPoolPort({ answer: () => ({ status: 201, body: { admitted: true, pool: 'app-42', admission: '../../etc', expires_ms: 1, window: {} } }) }));
  const planted = await runAction(gh.url, inputs(lying));
  assert.equal(planted.outputs.status, 'error');
  assert.equal(planted.outputs['admission-id'], '');
  assert.match(planted.stdout, /the port answered an admission id that is not 1 to 64 of \[A-Za-z0-9_-\]/);
  assert.equal(gh.requests.length, 3, 'one GitHub request per gate, whatever the port did');
  for (const run of [down, wrong, planted]) run.cleanup();
});

test('the Action: coordinator-pool is checked at the door, before any request', async () => {
  const gh = await started(startFakeGitHub({ scenario: 'ready' }));
  const port = await started(startPoolPort());
  const bad = await runAction(gh.url, inputs(port, { 'coordinator-pool': 'app/42' }));
  assert.equal(bad.outputs.status, 'error');
  assert.match(bad.stdout, /Error \(invalid-coordinator-pool\): coordinator-pool must be 1 to 64 of A-Z a-z 0-9 \. _ -/);
  const alone = await runAction(gh.url, { 'coordinator-pool': 'app-42' });
  assert.match(alone.stdout, /Error \(missing-coordinator-url\): coordinator-pool needs coordinator-url/);
  assert.equal(gh.requests.length, 0);
  assert.equal(port.requests.length, 0);
  bad.cleanup();
  alone.cleanup();
});

test('the CLI: gate --coordinator-pool, the token from DEFERRAL_COORDINATOR_TOKEN: admitted, then refused and retained', async () => {
  const gh = await started(startFakeGitHub({ scenario: 'ready' }));
  const port = await started(startPoolPort());
  const argv = ['gate', '--api-url', gh.url, '--plan', PLAN, '--scope', 'nightly-comments', '--coordinator-url', port.url,
    '--coordinator-launch', LAUNCH, '--coordinator-pool', 'app-42'];
  const env = { GITHUB_TOKEN: TEST_TOKEN, DEFERRAL_COORDINATOR_TOKEN: port.token };
  const first = await runCli(argv, { env });
  assert.equal(first.status, 0, first.stdout + first.stderr);
  assert.deepEqual([first.json.status, first.json.pool, first.json.admission], ['ready', 'app-42', '17']);

  const second = await runCli(argv, { env });
  assert.equal(second.status, 6, second.stdout);
  const line = second.json;
  assert.equal(line.status, 'deferred');
  assert.match(line.poolReason, /^pool app-42: 3000 more rest would leave/);
  assert.equal(line.rest.remaining, 1990, 'the pool\'s window, folded in');
  assert.ok(validateReceipt(line.deferredReceipt).ok);
  assert.equal(line.deferredReceipt.ownership.disposition, 'retained');
  assert.equal(line.deferralId, port.deferrals[0].id);
  assert.equal(statSync(line.cancellationHandlePath).mode & 0o777, 0o600);
  const handle = readFileSync(line.cancellationHandlePath, 'utf8').trim();
  assert.equal(createHash('sha256').update(handle).digest('hex'), line.deferredReceipt.ownership.cancellation_digest);
  assert.ok(!second.stdout.includes(handle) && !second.stdout.includes(port.token));
  assert.equal(gh.requests.length, 2);
  rmSync(line.cancellationHandlePath);

  const noToken = await runCli(argv, { env: { GITHUB_TOKEN: TEST_TOKEN } });
  assert.equal(noToken.status, 2);
  assert.equal(noToken.json.code, 'missing-coordinator-token');
  assert.equal(gh.requests.length, 2, 'refused before any request');
});
