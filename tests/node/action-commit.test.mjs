// The Action's coordinator-commit, through the built dist/ against the real `deferral-host serve`
// on loopback: a deferral handed to the port with its commit beside the receipt is taken (the
// port checks the field), the receipt holds no word of it, and bad values are input errors
// before any request.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeGitHub } from '../support/fake-github.mjs';
import { runAction, TEST_REPOSITORY } from '../support/run-action.mjs';
import { startServe } from '../support/host-serve.mjs';
import { validateReceipt } from '../../dist/lib/wasm.js';

const LAUNCH = 'workflow-dispatch:octo/app/label.yml@main';
const SHA = '89abcdef0123456789abcdef0123456789abcdef';
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
  'coordinator-url': serve.url, 'coordinator-token': serve.token, 'coordinator-launch': LAUNCH, ...extra,
});

test('the Action: a deferral with coordinator-commit is taken by the port, the commit beside the receipt', async () => {
  const gh = await api('rest-low');
  const run = await runAction(gh.url, port({ 'coordinator-commit': SHA.toUpperCase() }));
  assert.equal(run.outputs.status, 'deferred', run.stdout);
  assert.match(run.outputs['deferral-id'], /^d[0-9a-f]{24}$/);
  const receipt = run.outputs['deferred-receipt'];
  assert.ok(validateReceipt(receipt).ok);
  assert.doesNotMatch(receipt, new RegExp(`${SHA}|commit`, 'i'));
  // The job summary and the annotation say where the deferral shows: its status on the commit.
  const page = `https://github.com/${TEST_REPOSITORY}/commit/${SHA}`;
  assert.ok(run.summary.includes(`| commit status | \`deferral/label\` on [89abcde](${page}) |`), run.summary);
  assert.match(run.stdout, new RegExp(`::(warning|error) title=Deferral%3A deferred::.*Its status deferral/label on commit 89abcde follows it: ${page}`));
  run.cleanup();
});

test('the Action on GitHub Enterprise Server: the commit link is on GITHUB_SERVER_URL', async () => {
  const gh = await api('rest-low');
  const run = await runAction(gh.url, port({ 'coordinator-commit': SHA }), { env: { GITHUB_SERVER_URL: 'https://ghe.example.com/' } });
  assert.equal(run.outputs.status, 'deferred', run.stdout);
  assert.ok(run.summary.includes(`(https://ghe.example.com/${TEST_REPOSITORY}/commit/${SHA})`), run.summary);
  run.cleanup();
});

test('the Action: a coordinator-commit that is not a full SHA is an input error before any request', async () => {
  const gh = await api('rest-low');
  for (const bad of ['0123abc', 'main', `${SHA}0`]) {
    const run = await runAction(gh.url, port({ 'coordinator-commit': bad }));
    assert.equal(run.outputs.status, 'error', bad);
    assert.match(run.stdout, /Error \(invalid-coordinator-commit\): coordinator-commit must be a full commit SHA/);
    run.cleanup();
  }
  const alone = await runAction(gh.url, { 'coordinator-commit': SHA });
  assert.equal(alone.outputs.status, 'error');
  assert.match(alone.stdout, /Error \(missing-coordinator-url\): coordinator-commit needs coordinator-url/);
  alone.cleanup();
  assert.equal(gh.requests.length, 0, 'no request to GitHub');
});
