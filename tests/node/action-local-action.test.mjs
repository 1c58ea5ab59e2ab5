// GitHub's own runner for a laptop, `@github/local-action`, runs the Action as shipped
// (dist/main.js): it imports the entry, calls its exported run() once, and the gate reads the
// loopback GitHub once, writes its outputs and the job summary, for a gate that defers and one
// that proceeds. The same file still runs by itself under `node dist/main.js`, as the runner
// starts it (every other action-*.test.mjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeGitHub } from '../support/fake-github.mjs';
import { runLocalAction } from '../support/local-action.mjs';
import { validateReceipt } from '../../dist/lib/wasm.js';

const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));
async function api(scenario) {
  const s = await startFakeGitHub({ scenario });
  servers.push(s);
  return s;
}

test('local-action runs a gate that defers: one request, the receipt, the summary', async () => {
  const gh = await api('rest-low');
  const run = await runLocalAction(gh.url, { 'rest-reserve': '500' });
  assert.match(run.stdout, /Running Action/, `local-action ran it\n${run.stdout}\n${run.stderr}`);
  assert.doesNotMatch(run.stdout + run.stderr, /does not export a run\(\) function/);
  assert.equal(gh.requests.length, 1, 'imported and called once: exactly one GET /rate_limit');
  assert.equal(run.outputs.status, 'deferred', run.stdout);
  assert.equal(run.outputs.reason, 'rest-reserve');
  assert.equal(run.parsedOutputs.status.length, 1, 'outputs written once');
  const checked = validateReceipt(run.outputs['deferred-receipt']);
  assert.ok(checked.ok, JSON.stringify(checked.error));
  assert.ok(run.outputs['receipt-path'].startsWith(run.tempDir));
  assert.match(run.summary, /^### Deferral: Deferred/);
  assert.equal(run.summary.match(/^### Deferral/gm).length, 1, 'one summary');
  assert.match(run.summary, /\| reason \| `rest-reserve` \|/);
  assert.notEqual(run.status, 0, 'on-deferral: fail fails the step there too');
  run.cleanup();
});

test('local-action runs a gate that proceeds: ready, exit 0', async () => {
  const gh = await api('ready');
  const run = await runLocalAction(gh.url);
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.equal(gh.requests.length, 1);
  assert.equal(run.outputs.status, 'ready');
  assert.equal(run.outputs['rest-remaining'], '4990');
  assert.equal(run.outputs['deferred-receipt'], '');
  assert.match(run.summary, /^### Deferral: Ready/);
  assert.match(run.summary, /\| REST \(core\) \| 5000 \| 4990 \| 500 \| 0 \|/);
  run.cleanup();
});
