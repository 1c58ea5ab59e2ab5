// `deferral/octokit` with the real @octokit/core against a loopback GitHub stand-in: the request
// that would cross the reserve is never sent, limit answers throw DeferredError at once with a
// valid receipt, a plan is admitted whole, everything else passes through; and, side by side in
// one run, @octokit/plugin-throttling sleeping where this plugin stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Octokit } from '@octokit/core';
import { throttling } from '@octokit/plugin-throttling';
import { deferral, wrapOctokit, DeferredError, DeferralBlockedError } from 'deferral/octokit';
import { validateReceipt } from 'deferral';
import { startGitHub } from '../support/octokit-github.mjs';

const SCOPE = { repository: 'octo/app', job: 'octokit' };
const Gated = Octokit.plugin(deferral);
const client = (github, options = {}) => new Gated({ baseUrl: github.url, auth: 'test-token-not-real', deferral: { scope: SCOPE, ...options } });

async function withGitHub(opts, body) {
  const github = await startGitHub(opts);
  try { return await body(github); } finally { await github.stop(); }
}

/** Asserts a DeferredError with a valid handoff receipt of `reason`; answers it. */
async function deferred(promise, reason) {
  let caught;
  await assert.rejects(promise, (err) => { caught = err; return true; });
  assert.ok(caught instanceof DeferredError, `${caught?.name}: ${caught?.message}`);
  assert.ok(caught instanceof Error);
  assert.equal(caught.reason, reason);
  const checked = validateReceipt(caught.receipt);
  assert.ok(checked.ok, JSON.stringify(checked.error));
  assert.equal(caught.receipt.ownership.disposition, 'handoff');
  assert.equal(caught.resumeAfter, new Date(caught.receipt.resume_after_ms).toISOString());
  assert.equal(caught.resumeBy, new Date(caught.receipt.resume_by_ms).toISOString());
  return caught;
}

test('the request that would cross the reserve is never sent', () => withGitHub({ limit: 100, core: 12 }, async (github) => {
  const octokit = client(github);
  await octokit.request('GET /repos/{owner}/{repo}/issues', { owner: 'octo', repo: 'app' });
  await octokit.request('POST /repos/{owner}/{repo}/issues', { owner: 'octo', repo: 'app', title: 't' });
  // 10 left and a reserve of 10% of 100: one more request would leave 9.
  const err = await deferred(octokit.request('GET /repos/{owner}/{repo}/issues', { owner: 'octo', repo: 'app' }), 'rest-reserve');
  assert.equal(github.sent('/repos/octo/app/issues'), 2, 'the third request never left');
  assert.equal(github.sent('/rate_limit'), 1, 'the rate state is read once per instance');
  assert.ok(err.resumeAfterMs >= github.state.reset * 1000 + 60_000, 'resume after the reset plus the buffer');
  assert.match(err.message, /^deferred \(rest-reserve\)/);
}));

test('the receipt binds the work given as scope, request and plan, and a resumed run can recompute it', () => withGitHub({ limit: 100, core: 10 }, async (github) => {
  const plan = { rest: [{ method: 'GET', route: '/repos/{owner}/{repo}/issues', count: 1 }] };
  const octokit = client(github, { request: { labels: ['bug'] }, plan, restReserve: 10 });
  const err = await deferred(octokit.request('GET /repos/{owner}/{repo}/issues', { owner: 'octo', repo: 'app' }), 'rest-reserve');
  const { decide } = await import('deferral');
  const fresh = decide({ rate: { unlimited: true }, policy: { rest_reserve: 10 }, scope: SCOPE, request: { labels: ['bug'] }, plan, now_ms: Date.now() });
  assert.deepEqual(err.receipt.bindings, fresh.bindings);
  assert.equal(github.sent('/repos/octo/app/issues'), 0);
}));

test('a secondary limit answer throws at once, without a retry or a sleep', () => withGitHub({}, async (github) => {
  const octokit = client(github);
  github.state.secondary.push({ status: 403, retryAfter: 30 });
  const started = Date.now();
  const err = await deferred(octokit.request('POST /repos/{owner}/{repo}/issues', { owner: 'o', repo: 'r', title: 't' }), 'provider-secondary-limit');
  assert.ok(Date.now() - started < 1000, 'no sleep');
  assert.equal(github.sent('/repos/o/r/issues'), 1, 'no retry');
  assert.ok(err.resumeAfterMs >= started + 30_000, 'resume after retry-after');
  // The hold stays: the next request is stopped before it is sent.
  await deferred(octokit.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }), 'provider-secondary-limit');
  assert.equal(github.sent('/repos/o/r'), 0);
  // Without retry-after, and as a 429: still at once, at least a minute out.
  const other = client(github);
  github.state.secondary.push({ status: 429 });
  const late = await deferred(other.request('GET /user'), 'provider-secondary-limit');
  assert.ok(late.resumeAfterMs >= Date.now() + 59_000);
}));

test('a primary limit answer (another process spent the quota) throws with the reset time', () => withGitHub({ limit: 5000, core: 4000 }, async (github) => {
  const octokit = client(github);
  await octokit.request('GET /user');
  github.state.core = 0; // spent elsewhere since the last answer
  const err = await deferred(octokit.request('GET /user'), 'rest-reserve');
  assert.ok(err.resumeAfterMs >= github.state.reset * 1000);
  assert.equal(github.sent('/user'), 2);
}));

test('GraphQL: a RATE_LIMITED answer throws DeferredError; a costly query is stopped before it is sent', () => withGitHub({ limit: 1000, graphql: 200 }, async (github) => {
  const octokit = client(github);
  assert.deepEqual(await octokit.graphql('query { viewer { login } }'), { viewer: { login: 'octocat' } });
  github.state.graphqlError = 'RATE_LIMITED';
  await deferred(octokit.graphql('query { viewer { login } }'), 'graphql-reserve');
  // GitHub's documented example costs 51 points: with 140 left, 140 - 51 would cross the
  // reserve of 10% of 1,000; with 160 left it fits.
  const costly = 'query { viewer { repositories(first: 100) { nodes { issues(first: 50) { nodes { labels(first: 60) { nodes { name } } } } } } } }';
  const third = client(github);
  github.state.graphql = 140;
  const before = github.sent('/graphql');
  await deferred(third.graphql(costly), 'graphql-reserve');
  assert.equal(github.sent('/graphql'), before, 'the costly query never left');
  github.state.graphql = 160;
  await client(github).graphql(costly);
  assert.equal(github.sent('/graphql'), before + 1);
}));

test('GraphQL: the newer RATE_LIMIT answer (code graphql_rate_limit) throws DeferredError', () => withGitHub({ limit: 1000, graphql: 200 }, async (github) => {
  github.state.graphqlError = 'RATE_LIMIT';
  await deferred(client(github).graphql('query { viewer { login } }'), 'graphql-reserve');
}));

test('a plan is admitted whole before the first request; one that can never fit is blocked', () => withGitHub({ limit: 100, core: 50 }, async (github) => {
  const plan = { rest: [{ method: 'POST', route: '/repos/{owner}/{repo}/issues', count: 45 }] };
  await deferred(client(github, { plan }).request('GET /user'), 'rest-reserve');
  assert.equal(github.sent('/user'), 0, 'nothing of the work was sent');
  const fits = client(github, { plan: { rest: [{ method: 'GET', route: '/user', count: 5 }] } });
  await fits.request('GET /user');
  const never = client(github, { plan: { rest: [{ method: 'GET', route: '/user', count: 95 }] } });
  await assert.rejects(never.request('GET /user'), (err) => {
    assert.ok(err instanceof DeferralBlockedError);
    assert.equal(err.code, 'plan-exceeds-window');
    return true;
  });
  assert.throws(() => client(github, { restReserve: 'lots' }), (err) => {
    assert.ok(err instanceof TypeError);
    assert.equal(err.code, 'invalid-input');
    assert.match(err.message, /^invalid deferral options: .*reserve/);
    return true;
  });
}));

test('everything else passes through untouched; wrapOctokit gates an existing instance once', () => withGitHub({}, async (github) => {
  const plain = new Octokit({ baseUrl: github.url, auth: 'test-token-not-real' });
  assert.equal(wrapOctokit(plain, { scope: SCOPE }), plain);
  const answer = await plain.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' });
  assert.equal(answer.status, 200);
  assert.equal(answer.headers['x-ratelimit-resource'], 'core');
  await assert.rejects(plain.request('GET /missing'), (err) => {
    assert.equal(err.name, 'HttpError');
    assert.equal(err.status, 404);
    return true;
  });
  assert.throws(() => wrapOctokit(plain), /already gated/);
  assert.throws(() => wrapOctokit({}), /needs an Octokit instance/);
}));

test('GitHub Enterprise Server without rate limiting is unlimited; an unreadable rate state stops the work', () => withGitHub({}, async (github) => {
  github.state.rateLimitAnswer = { status: 404, body: { message: 'Rate limiting is not enabled.', documentation_url: 'https://docs.github.com/enterprise-server@3.14/rest/rate-limit/rate-limit', status: '404' } };
  assert.equal((await client(github).request('GET /user')).status, 200);
  github.state.rateLimitAnswer = { status: 200, body: { resources: { core: { limit: 'many' } } } };
  const before = github.sent('/user');
  await assert.rejects(client(github).request('GET /user'), (err) => {
    assert.ok(err instanceof DeferralBlockedError, String(err));
    assert.equal(err.status, 'error');
    assert.match(err.message, /GET \/rate_limit answered what the core cannot read/);
    return true;
  });
  assert.equal(github.sent('/user'), before, 'nothing was sent blind');
}));

test('side by side: plugin-throttling sleeps through a secondary limit, deferral stops at once', () => withGitHub({}, async (github) => {
  const Throttled = Octokit.plugin(throttling);
  const waits = [];
  const throttled = new Throttled({
    baseUrl: github.url,
    auth: 'test-token-not-real',
    throttle: {
      onRateLimit: (after) => { waits.push(after); return true; },
      onSecondaryRateLimit: (after) => { waits.push(after); return true; },
    },
  });
  const gated = client(github);
  github.state.secondary.push({ status: 403, retryAfter: 1 });
  let started = Date.now();
  const answer = await throttled.request('POST /repos/{owner}/{repo}/issues', { owner: 'o', repo: 'throttled', title: 't' });
  const throttledMs = Date.now() - started;
  assert.equal(answer.status, 201, 'throttling retried after sleeping');
  assert.deepEqual(waits, [1]);
  assert.equal(github.sent('/repos/o/throttled/issues'), 2);

  github.state.secondary.push({ status: 403, retryAfter: 1 });
  started = Date.now();
  await deferred(gated.request('POST /repos/{owner}/{repo}/issues', { owner: 'o', repo: 'gated', title: 't' }), 'provider-secondary-limit');
  const gatedMs = Date.now() - started;
  assert.equal(github.sent('/repos/o/gated/issues'), 1);
  assert.ok(throttledMs >= 1000, `throttling slept ${throttledMs} ms`);
  assert.ok(gatedMs < throttledMs / 4, `deferral took ${gatedMs} ms`);
  console.log(`# side by side, retry-after 1 s: plugin-throttling ${throttledMs} ms (slept, retried), deferral ${gatedMs} ms (stopped with a receipt)`);
}));
