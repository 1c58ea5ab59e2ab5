// deferral/octokit given a port and a pool spends at most what the pool admitted: a plan of 3
// writes is admitted, the 3 go out, and a 4th is refused locally (PortError `admission-spent`)
// without being sent; after octokit.deferral.release() nothing is sent at all (PortError
// `admission-released`): with a pool, no request goes out without an admission that covers it.
// Real @octokit/core against a loopback GitHub stand-in and a loopback stand-in of the port's
// pool side (tests/support/pool-port.mjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Octokit } from '@octokit/core';
import { deferral } from 'deferral/octokit';
import { createServePort, PortError } from 'deferral';
import { startGitHub } from '../support/octokit-github.mjs';
import { startPoolPort } from '../support/pool-port.mjs';

const Gated = Octokit.plugin(deferral);
const PLAN = { rest: [{ method: 'POST', route: '/repos/{owner}/{repo}/issues/{issue_number}/comments', count: 3 }] };
const memory = () => { const m = new Map(); return { get: async (k) => m.get(k), set: async (k, v) => { m.set(k, v); } }; };
const comment = (octokit) => octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: 'octo', repo: 'app', issue_number: 1, body: 'hi' });
const PATH = '/repos/octo/app/issues/1/comments';

const stops = [];
after(() => Promise.all(stops.map((s) => s())));
async function stand() {
  const github = await startGitHub({ limit: 5000, core: 4990 });
  const port = await startPoolPort();
  stops.push(() => github.stop(), () => port.close());
  const octokit = new Gated({
    baseUrl: github.url, auth: 'test-token-not-real',
    deferral: { scope: { work: 'comments' }, plan: PLAN, pool: 'app-42', port: createServePort({ url: port.url, token: port.token, launch: 'exec:/usr/local/bin/resume-comments', keyStore: memory() }) },
  });
  return { github, port, octokit };
}
const refused = (code) => (err) => {
  assert.ok(err instanceof PortError, `${err?.name}: ${err?.message}`);
  assert.equal(err.code, code, err.message);
  assert.equal(err.status, 0, 'refused locally: nothing was asked or sent');
  return true;
};

test('a plan of 3 admitted: 3 writes go out, the 4th is refused locally and never sent', async () => {
  const { github, port, octokit } = await stand();
  for (let i = 0; i < 3; i++) await comment(octokit);
  assert.equal(github.sent(PATH), 3);
  await assert.rejects(comment(octokit), refused('admission-spent'));
  await assert.rejects(comment(octokit), refused('admission-spent'));
  assert.equal(github.sent(PATH), 3, 'nothing beyond the admitted plan was sent');
  assert.equal(port.requests.filter((r) => r.path === '/v1/admissions').length, 1, 'one admission, not a second behind the pool\'s back');
  await assert.rejects(comment(octokit), (err) => /admitted 3 rest in pool app-42/.test(err.message), 'the message says what was admitted');
});

test('after release() nothing is sent without an admission', async () => {
  const { github, port, octokit } = await stand();
  await comment(octokit);
  assert.deepEqual(await octokit.deferral.release(), { released: true, already: false });
  const asked = port.requests.length;
  await assert.rejects(comment(octokit), refused('admission-released'));
  await assert.rejects(octokit.request('GET /repos/{owner}/{repo}', { owner: 'octo', repo: 'app' }), refused('admission-released'));
  assert.equal(github.sent(PATH), 1, 'nothing was sent after the release');
  assert.equal(port.requests.length, asked, 'and the pool was not asked again');
});
