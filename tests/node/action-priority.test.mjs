// A deferral's place in its pool, given by the Action (`coordinator-priority`,
// `coordinator-fairness-key`) and the CLI (`gate --coordinator-priority/--coordinator-fairness-key`),
// against the real `deferral-host serve` on loopback: the host keeps them beside the deferral
// (GET /v1/deferrals/ID and `show --json` show them), never in the receipt; a gate without them
// is recorded at priority 0 with its launch target's key, as before; bad values are input errors
// before any request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeGitHub, TEST_TOKEN } from '../support/fake-github.mjs';
import { runAction, runCli } from '../support/run-action.mjs';
import { startServe } from '../support/host-serve.mjs';
import { validateReceipt } from '../../dist/lib/wasm.js';

const LAUNCH = 'workflow-dispatch:octo/app/label.yml@main';
let serve;
const servers = [];
before(async () => { serve = await startServe({ allowLaunch: ['workflow-dispatch:'] }); });
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  assert.equal(await serve.stop(), 0);
});
async function api(scenario) {
  const s = await startFakeGitHub({ scenario });
  servers.push(s);
  return s;
}
const port = (extra = {}) => ({
  'coordinator-url': serve.url, 'coordinator-token': serve.token, 'coordinator-launch': LAUNCH,
  'coordinator-pool': 'app-42', ...extra,
});

/** The deferral as GET /v1/deferrals/ID answers it. */
async function deferral(id) {
  const res = await fetch(`${serve.url}/v1/deferrals/${id}`, { headers: { authorization: `Bearer ${serve.token}` } });
  assert.equal(res.status, 200);
  return res.json();
}

/** The receipt carries no word of the pool's order: not a field, not a value. */
function assertReceiptClean(text) {
  const checked = validateReceipt(text);
  assert.ok(checked.ok, JSON.stringify(checked.error));
  assert.doesNotMatch(text, /priority|fairness|labeler/);
}

test('the Action: coordinator-priority 2 and coordinator-fairness-key labeler are kept by the host beside the deferral, not in the receipt', async () => {
  const gh = await api('rest-low');
  const run = await runAction(gh.url, port({ 'coordinator-priority': '2', 'coordinator-fairness-key': 'labeler' }));
  assert.equal(run.outputs.status, 'deferred', run.stdout);
  const id = run.outputs['deferral-id'];
  assert.match(id, /^d[0-9a-f]{24}$/);
  const seen = await deferral(id);
  assert.deepEqual([seen.state, seen.pool, seen.priority, seen.fairness_key], ['deferred', 'app-42', 2, 'labeler']);
  const shown = serve.host(['show', '--json', id]).json;
  assert.deepEqual([shown.deferral.priority, shown.deferral.fairness_key], [2, 'labeler']);
  // Neither the receipt the Action output nor any receipt the host keeps holds them.
  assertReceiptClean(run.outputs['deferred-receipt']);
  assert.ok(shown.receipts.length >= 1);
  for (const kept of shown.receipts) assertReceiptClean(JSON.stringify(kept.receipt));
  assert.equal(gh.requests.length, 1, 'still one request to GitHub');
  run.cleanup();
});

test('the Action without them: priority 0 and the launch target\'s key, as before', async () => {
  const gh = await api('rest-low');
  // '0' is action.yml's default: the same as absent, with or without a port.
  const run = await runAction(gh.url, port({ 'coordinator-priority': '0', 'coordinator-fairness-key': '' }));
  assert.equal(run.outputs.status, 'deferred', run.stdout);
  const seen = await deferral(run.outputs['deferral-id']);
  assert.deepEqual([seen.priority, seen.fairness_key], [0, 'octo/app/label.yml']);
  run.cleanup();
  const alone = await runAction(gh.url, { 'coordinator-priority': '0' });
  assert.equal(alone.outputs.status, 'deferred', alone.stdout);
  alone.cleanup();
});

test('the Action: a negative priority is a whole number too', async () => {
  const gh = await api('rest-low');
  const run = await runAction(gh.url, port({ 'coordinator-priority': '-3' }));
  assert.equal(run.outputs.status, 'deferred', run.stdout);
  const seen = await deferral(run.outputs['deferral-id']);
  assert.deepEqual([seen.priority, seen.fairness_key], [-3, 'octo/app/label.yml']);
  run.cleanup();
});

test('the Action: bad values are input errors at the door, before any request', async () => {
  const gh = await api('rest-low');
  const cases = [
    [{ 'coordinator-priority': 'high' }, 'invalid-coordinator-priority', /coordinator-priority must be a whole number/],
    [{ 'coordinator-priority': '2.5' }, 'invalid-coordinator-priority', /coordinator-priority must be a whole number/],
    [{ 'coordinator-priority': '9223372036854775808' }, 'invalid-coordinator-priority', /coordinator-priority must be a whole number from -9223372036854775808 to 9223372036854775807/],
    [{ 'coordinator-fairness-key': 'k'.repeat(201) }, 'invalid-coordinator-fairness-key', /coordinator-fairness-key must be 1 to 200 characters without control characters/],
    [{ 'coordinator-fairness-key': 'label\u0007er' }, 'invalid-coordinator-fairness-key', /coordinator-fairness-key must be 1 to 200/],
  ];
  for (const [extra, code, message] of cases) {
    const run = await runAction(gh.url, port(extra));
    assert.equal(run.outputs.status, 'error', JSON.stringify(extra));
    assert.match(run.stdout, new RegExp(`Error \\(${code}\\): ${message.source}`));
    run.cleanup();
  }
  for (const extra of [{ 'coordinator-priority': '1' }, { 'coordinator-fairness-key': 'labeler' }]) {
    const alone = await runAction(gh.url, extra);
    assert.equal(alone.outputs.status, 'error');
    assert.match(alone.stdout, new RegExp(`Error \\(missing-coordinator-url\\): ${Object.keys(extra)[0]} needs coordinator-url`));
    alone.cleanup();
  }
  assert.equal(gh.requests.length, 0, 'no request to GitHub');
  // 200 characters is the host's bound, and it is taken.
  const long = await runAction(gh.url, port({ 'coordinator-fairness-key': 'k'.repeat(200) }));
  assert.equal(long.outputs.status, 'deferred', long.stdout);
  assert.equal((await deferral(long.outputs['deferral-id'])).fairness_key, 'k'.repeat(200));
  long.cleanup();
});

test('the CLI: gate --coordinator-priority and --coordinator-fairness-key', async () => {
  const gh = await api('rest-low');
  const argv = ['gate', '--api-url', gh.url, '--scope', 'labels', '--coordinator-url', serve.url,
    '--coordinator-launch', LAUNCH, '--coordinator-priority', '2', '--coordinator-fairness-key', 'labeler'];
  const env = { GITHUB_TOKEN: TEST_TOKEN, DEFERRAL_COORDINATOR_TOKEN: serve.token };
  const run = await runCli(argv, { env });
  assert.equal(run.status, 6, run.stdout + run.stderr);
  assert.equal(run.json.status, 'deferred');
  const seen = await deferral(run.json.deferralId);
  // No pool named: the host's default pool, where the priority orders it.
  assert.deepEqual([seen.pool, seen.priority, seen.fairness_key], ['default', 2, 'labeler']);
  assertReceiptClean(JSON.stringify(run.json.deferredReceipt));

  const bad = await runCli([...argv.slice(0, -4), '--coordinator-priority', '1e3'], { env });
  assert.equal(bad.status, 2);
  assert.equal(bad.json.code, 'invalid-coordinator-priority');
  const lone = await runCli(['gate', '--api-url', gh.url, '--coordinator-fairness-key', 'labeler'], { env });
  assert.equal(lone.status, 2);
  assert.equal(lone.json.code, 'missing-coordinator-url');
  assert.equal(gh.requests.length, 1, 'the bad ones made no request');
});
