// The Action's opt-in durable port: with coordinator-url set and the gate deferring, the
// handoff receipt is retained by the real `deferral-host serve`; the cancellation handle goes
// only to a 0600 file; GitHub still gets exactly one request; a port failure keeps the receipt.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { startFakeGitHub, TEST_TOKEN } from '../support/fake-github.mjs';
import { runAction } from '../support/run-action.mjs';
import { startServe } from '../support/host-serve.mjs';
import { validateReceipt } from '../../dist/lib/wasm.js';

const LAUNCH = 'workflow-dispatch:octo/app/sync.yml@main';
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
const port = (extra = {}) => ({ 'coordinator-url': serve.url, 'coordinator-token': serve.token, 'coordinator-launch': LAUNCH, ...extra });
const records = () => serve.log().filter((l) => l.startsWith('POST /v1/deferrals '));

/** Nothing the run wrote may hold `secret` (the runner's mask command aside). */
function assertNotShown(run, secret, what) {
  const stdout = run.stdout.split('\n').filter((l) => !l.startsWith('::add-mask::')).join('\n');
  for (const [where, text] of Object.entries({ stdout, stderr: run.stderr, outputs: run.rawOutput, summary: run.summary })) {
    assert.ok(!text.includes(secret), `${where} shows the ${what}`);
  }
}

test('deferred: the port retains the receipt; id, retained receipt and a 0600 handle file', async () => {
  const gh = await api('rest-low');
  const run = await runAction(gh.url, port());
  assert.equal(run.status, 1, 'on-deferral: fail still fails the step');
  assert.equal(gh.requests.length, 1, 'still exactly one request to GitHub');
  assert.equal(run.outputs.status, 'deferred', run.stdout);
  const id = run.outputs['deferral-id'];
  assert.match(id, /^d[0-9a-f]{24}$/);
  const checked = validateReceipt(run.outputs['deferred-receipt']);
  assert.ok(checked.ok, JSON.stringify(checked.error));
  assert.equal(checked.receipt.ownership.disposition, 'retained');
  assert.deepEqual(JSON.parse(readFileSync(run.outputs['receipt-path'], 'utf8')), JSON.parse(run.outputs['deferred-receipt']));

  const handlePath = run.outputs['cancellation-handle-path'];
  assert.ok(handlePath.startsWith(run.tempDir), 'the handle file is under RUNNER_TEMP');
  assert.equal(statSync(handlePath).mode & 0o777, 0o600);
  const handle = readFileSync(handlePath, 'utf8').trim();
  assert.match(handle, /^[0-9a-f]{64}$/);
  assert.equal(createHash('sha256').update(handle).digest('hex'), checked.receipt.ownership.cancellation_digest);
  assertNotShown(run, handle, 'cancellation handle');
  assert.ok(!run.stdout.includes(`::add-mask::${handle}`), 'the handle is not even sent to the mask command');
  assert.ok(run.stdout.includes(`::add-mask::${serve.token}\n`), 'the coordinator token is masked');
  assertNotShown(run, serve.token, 'coordinator token');
  assertNotShown(run, TEST_TOKEN, 'GitHub token');
  assert.match(run.summary, new RegExp(`retained as \`${id}\``));

  const status = serve.host(['status', '--json', id]).json;
  assert.deepEqual([status.state, status.launch], ['deferred', LAUNCH]);
  // The operator's handle works: the file is the way to cancel.
  const cancelled = serve.host(['cancel', id], { DEFERRAL_CANCELLATION_HANDLE: handle });
  assert.equal(cancelled.json?.state, 'cancelled', cancelled.stderr);
  run.cleanup();
});

test('ready: the port is not called', async () => {
  const gh = await api('ready');
  const before = records().length;
  const run = await runAction(gh.url, port());
  assert.equal(run.status, 0);
  assert.equal(run.outputs.status, 'ready');
  assert.equal(run.outputs['deferral-id'], '');
  assert.equal(run.outputs['cancellation-handle-path'], '');
  await serve.host(['status', '--limit', '1']); // any later call: its log line follows a stray one
  assert.equal(records().length, before);
  run.cleanup();
});

test('an unreachable port is an error, and the handoff receipt is still kept', async () => {
  const gh = await api('rest-low');
  const run = await runAction(gh.url, port({ 'coordinator-url': 'http://127.0.0.1:1' }));
  assert.equal(run.status, 1);
  assert.equal(gh.requests.length, 1);
  assert.equal(run.outputs.status, 'error');
  assert.match(run.stdout, /coordinator-failed.*durable port did not retain the receipt.*port-unreachable.*receipt-path/);
  const kept = validateReceipt(readFileSync(run.outputs['receipt-path'], 'utf8'));
  assert.ok(kept.ok);
  assert.equal(kept.receipt.ownership.disposition, 'handoff');
  assert.equal(run.outputs['deferral-id'], '');
  assert.equal(run.outputs['cancellation-handle-path'], '');
  assert.deepEqual(readdirSync(`${run.tempDir}/deferral`).filter((f) => f.startsWith('cancellation-handle-')), [], 'no handle file');
  run.cleanup();
});

test('a wrong coordinator token is refused by the port (401) and never shown', async () => {
  const gh = await api('rest-low');
  const wrong = 'wrong-coordinator-token-0123456789';
  const run = await runAction(gh.url, port({ 'coordinator-token': wrong }));
  assert.equal(run.outputs.status, 'error');
  assert.match(run.stdout, /HTTP 401 unauthorized/);
  assertNotShown(run, wrong, 'coordinator token');
  run.cleanup();
});

test('a misconfigured port is an input error before any GitHub request', async () => {
  const gh = await api('rest-low');
  const noLaunch = await runAction(gh.url, port({ 'coordinator-launch': '' }));
  assert.equal(noLaunch.outputs.status, 'error');
  assert.match(noLaunch.stdout, /missing-coordinator-launch/);
  const noToken = await runAction(gh.url, port({ 'coordinator-token': '' }));
  assert.match(noToken.stdout, /missing-coordinator-token/);
  const badUrl = await runAction(gh.url, port({ 'coordinator-url': 'ftp://x' }));
  assert.match(badUrl.stdout, /invalid-coordinator-url/);
  assert.equal(gh.requests.length, 0);
  for (const run of [noLaunch, noToken, badUrl]) run.cleanup();
});
