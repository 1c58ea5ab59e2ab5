// One admission across runners in the library: the serve-backed port's admit and release, and
// deferral/octokit given a port and a pool, with the real @octokit/core against a loopback
// GitHub stand-in and a loopback stand-in of the port's pool side (tests/support/pool-port.mjs).
// Two instances stand for two runners on one installation: the first plan is admitted, the
// second defers before sending anything, and after a release a third is admitted again.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Octokit } from '@octokit/core';
import { deferral, DeferredError } from 'deferral/octokit';
import { createServePort, PortError, validateReceipt } from 'deferral';
import { startGitHub } from '../support/octokit-github.mjs';
import { startPoolPort } from '../support/pool-port.mjs';

const Gated = Octokit.plugin(deferral);
// 3,000 comments: one batch fits above the 500 reserve in 4,990, two do not.
const PLAN = { rest: [{ method: 'POST', route: '/repos/{owner}/{repo}/issues/{issue_number}/comments', count: 3000 }] };
const memory = () => { const m = new Map(); return { get: async (k) => m.get(k), set: async (k, v) => { m.set(k, v); } }; };
const servePort = (port, token = port.token) => createServePort({ url: port.url, token, launch: 'exec:/usr/local/bin/resume-comments', keyStore: memory() });
const runner = (github, options) => new Gated({ baseUrl: github.url, auth: 'test-token-not-real', deferral: { scope: { work: 'comments' }, plan: PLAN, ...options } });
const comment = (octokit) => octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: 'octo', repo: 'app', issue_number: 1, body: 'hi' });

const stops = [];
after(() => Promise.all(stops.map((s) => s())));
async function stand() {
  const github = await startGitHub({ limit: 5000, core: 4990 });
  const port = await startPoolPort();
  stops.push(() => github.stop(), () => port.close());
  return { github, port };
}

test('two runners on one pool: the first plan is admitted, the second defers unsent; released, a third is admitted', async () => {
  const { github, port } = await stand();
  const first = runner(github, { port: servePort(port), pool: 'app-42' });
  await comment(first);
  assert.equal(first.deferral.admission(), '17');
  const [asked] = port.requests;
  assert.equal(asked.path, '/v1/admissions');
  assert.deepEqual(asked.body.cost, { rest: 3000, graphql: 0, content: 3000 });
  assert.deepEqual({ ...asked.body.rate.rest, reset_ms: 0 }, { limit: 5000, remaining: 4990, reserve: 500, reset_ms: 0 });
  assert.ok(Math.abs(asked.body.rate.rest.reset_ms - github.state.reset * 1000) < 2000);
  // Admitted once: later requests of the batch ask the pool nothing more.
  await comment(first);
  assert.equal(port.requests.length, 1);

  const second = runner(github, { port: servePort(port), pool: 'app-42' });
  let caught;
  await assert.rejects(comment(second), (err) => { caught = err; return true; });
  assert.ok(caught instanceof DeferredError, caught?.message);
  assert.equal(caught.reason, 'rest-reserve');
  assert.equal(caught.pool, 'app-42');
  assert.match(caught.poolReason, /^pool app-42: 3000 more rest would leave/);
  assert.match(caught.message, /pool app-42 refused/);
  assert.ok(validateReceipt(caught.receipt).ok);
  assert.ok(caught.resumeAfterMs >= github.state.reset * 1000 + 60_000 - 1000, 'resume at the pool\'s reset plus the buffer');
  assert.equal(second.deferral.admission(), null);
  assert.equal(github.sent('/repos/octo/app/issues/1/comments'), 2, 'the second runner sent nothing');
  // The pool's window stays in the second runner's rate state: it defers again without asking.
  await assert.rejects(comment(second), DeferredError);
  assert.equal(port.requests.filter((r) => r.path === '/v1/admissions').length, 2);

  assert.deepEqual(await first.deferral.release(), { released: true, already: false });
  const release = port.requests.at(-1);
  assert.equal(release.path, '/v1/admissions/17/release');
  assert.equal(release.body.rate.rest.remaining, 4988, 'the rate state seen last: two comments later');
  assert.equal(await first.deferral.release(), null, 'nothing more to release');

  const third = runner(github, { port: servePort(port), pool: 'app-42' });
  await comment(third);
  assert.equal(third.deferral.admission(), '18');
});

test('no work without an admission: an unreachable port, a refused token, a port that disagrees', async () => {
  const { github, port } = await stand();
  const down = runner(github, { port: createServePort({ url: 'http://127.0.0.1:1', token: 't', launch: 'exec:/bin/true', keyStore: memory() }), pool: 'app-42' });
  await assert.rejects(comment(down), (err) => err instanceof PortError && err.code === 'port-unreachable' && err.status === 0);
  const wrong = runner(github, { port: servePort(port, 'not-the-port-token'), pool: 'app-42' });
  await assert.rejects(comment(wrong), (err) => err instanceof PortError && err.status === 401 && err.code === 'unauthorized');
  const roomy = await startPoolPort({ answer: ({ pool }) => ({ status: 200, body: { admitted: false, pool, reason: 'full', window: { rest: { limit: 5000, remaining: 4990, reserve: 500, reset_ms: github.state.reset * 1000 } } } }) });
  stops.push(() => roomy.close());
  const lying = runner(github, { port: servePort(roomy), pool: 'app-42' });
  await assert.rejects(comment(lying), (err) => err instanceof PortError && err.code === 'coordinator-failed'
    && /pool app-42 refused the plan, yet its window leaves room for it/.test(err.message));
  assert.equal(github.sent('/repos/octo/app/issues/1/comments'), 0, 'nothing was sent');
});

test('the plugin refuses a pool without a port, a port without a pool, a pool without a plan, a bad name', async () => {
  const { github, port } = await stand();
  const options = [
    [{ pool: 'app-42' }, 'invalid-options', /pool needs port/],
    [{ port: servePort(port) }, 'invalid-options', /port needs pool/],
    [{ port: servePort(port), pool: 'app-42', plan: undefined }, 'invalid-options', /pool needs plan/],
    [{ port: { admit: () => {} }, pool: 'app-42' }, 'invalid-options', /port needs admit and release/],
    [{ port: servePort(port), pool: 'app 42' }, 'invalid-pool', /a pool is 1 to 64 of/],
  ];
  for (const [given, code, message] of options) {
    assert.throws(() => runner(github, given), (err) => err instanceof TypeError && err.code === code && message.test(err.message), JSON.stringify(Object.keys(given)));
  }
  assert.equal(port.requests.length, 0);
  assert.equal(github.requests.length, 0);
});

test('the serve port: admit and release check what they send and what they get', async () => {
  const { port } = await stand();
  const p = servePort(port);
  const rate = { observed_ms: Date.now(), rest: { limit: 60, remaining: 50, reserve: 6, reset_ms: Date.now() + 3_600_000 } };
  const admitted = await p.admit({ pool: 'p.1', cost: { rest: 10 }, rate });
  assert.deepEqual({ ...admitted, expiresMs: 0 }, { admitted: true, admission: '17', pool: 'p.1', expiresMs: 0, window: { rest: rate.rest } });
  assert.deepEqual(port.requests[0].body, { pool: 'p.1', cost: { rest: 10, graphql: 0, content: 0 }, rate });
  const refused = await p.admit({ pool: 'p.1', cost: { rest: 40 }, rate });
  assert.deepEqual(refused, { admitted: false, pool: 'p.1', reason: 'pool p.1: 40 more rest would leave 0, below the reserve of 6', window: { rest: { ...rate.rest, remaining: 40 } } });
  assert.deepEqual(await p.release('17'), { released: true, already: false });
  assert.deepEqual(port.requests.at(-1).body, {});
  assert.deepEqual(await p.release('17', rate), { released: false, already: true });

  const sent = port.requests.length;
  for (const [input, code] of [
    [{ pool: 'a/b', cost: {}, rate }, 'invalid-pool'],
    [{ pool: 'p', cost: { rest: 1.5 }, rate }, 'invalid-admission-request'],
    [{ pool: 'p', cost: { Rest: 1 }, rate }, 'invalid-admission-request'],
    [{ pool: 'p', cost: {}, rate: { rest: rate.rest } }, 'invalid-admission-request'],
    [{ pool: 'p', cost: {}, rate: { observed_ms: 1 } }, 'invalid-admission-request'],
    [{ pool: 'p', cost: {}, rate: { ...rate, rest: { ...rate.rest, remaining: '50' } } }, 'invalid-admission-request'],
  ]) {
    await assert.rejects(p.admit(input), (err) => err instanceof PortError && err.status === 0 && err.code === code, JSON.stringify(input));
  }
  await assert.rejects(p.release('../x'), (err) => err.code === 'invalid-admission-request');
  assert.equal(port.requests.length, sent, 'nothing was sent');

  for (const body of [
    { admitted: true, pool: 'p.1', admission: '1/2', expires_ms: 1, window: {} },
    { admitted: true, pool: 'p.2', admission: '1', expires_ms: 1, window: {} },
    { admitted: false, pool: 'p.1', reason: 'x', window: { rest: { limit: 1, remaining: 2, reserve: 0, reset_ms: 1 } } },
    { admitted: 'yes', pool: 'p.1' },
  ]) {
    const hostile = await startPoolPort({ answer: () => ({ status: 201, body }) });
    stops.push(() => hostile.close());
    await assert.rejects(servePort(hostile).admit({ pool: 'p.1', cost: {}, rate }), (err) => err.code === 'invalid-port-answer', JSON.stringify(body));
  }
});
