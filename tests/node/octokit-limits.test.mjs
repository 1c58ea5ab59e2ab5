// `deferral/octokit` (the built package, real @octokit/core) against the loopback GitHub
// stand-in, on the answers GitHub documents as primary limits but that lack some headers, on
// parallel requests near the reserve, and on GraphQL sent as a raw body: every primary limit
// throws DeferredError for its own bucket, what is in flight counts against what is left, and a
// raw GraphQL body is costed in points.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Octokit } from '@octokit/core';
import { deferral, DeferredError } from 'deferral/octokit';
import { validateReceipt } from 'deferral';
import { startGitHub } from '../support/octokit-github.mjs';

const SCOPE = { repository: 'octo/app', job: 'octokit-limits' };
const Gated = Octokit.plugin(deferral);
const client = (github, options = {}) => new Gated({ baseUrl: github.url, auth: 'test-token-not-real', deferral: { scope: SCOPE, ...options } });
const HOUR = 3_600_000;

async function withGitHub(opts, body) {
  const github = await startGitHub(opts);
  try { return await body(github); } finally { await github.stop(); }
}

async function deferred(promise, reason) {
  let caught;
  await assert.rejects(promise, (err) => { caught = err; return true; });
  assert.ok(caught instanceof DeferredError, `${caught?.name}: ${caught?.message}`);
  assert.equal(caught.reason, reason, caught.message);
  const checked = validateReceipt(caught.receipt);
  assert.ok(checked.ok, JSON.stringify(checked.error));
  return caught;
}

async function httpError(promise, status) {
  await assert.rejects(promise, (err) => {
    assert.equal(err.name, 'HttpError', `${err.name}: ${err.message}`);
    assert.equal(err.status, status);
    return true;
  });
}

/** GitHub's answer headers for `resource` at `remaining`, without the names in `drop`. */
const trimmed = (github, resource, remaining, drop, extra = {}) => {
  const head = { ...github.headers(resource, remaining), ...extra };
  for (const name of drop) delete head[name];
  return head;
};
const PRIMARY = { message: 'API rate limit exceeded for user ID 1.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit' };

test('a 403 primary limit without x-ratelimit-limit defers REST work at its reset', () => withGitHub({ limit: 5000, core: 4000 }, async (github) => {
  const octokit = client(github);
  await octokit.request('GET /user');
  github.state.canned.push({ status: 403, headers: trimmed(github, 'core', 0, ['x-ratelimit-limit', 'x-ratelimit-used']), body: { ...PRIMARY, status: '403' } });
  const err = await deferred(octokit.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }), 'rest-reserve');
  assert.ok(err.resumeAfterMs >= github.state.reset * 1000, 'resume after the reset');
  // The bucket stays spent: the next request is stopped before it is sent.
  const before = github.requests.length;
  await deferred(octokit.request('GET /user'), 'rest-reserve');
  assert.equal(github.requests.length, before, 'nothing more was sent');
}));

test('a 429 primary limit whose reset has passed, without a limit header, defers for the default hour', () => withGitHub({ limit: 5000, core: 4000 }, async (github) => {
  const octokit = client(github);
  await octokit.request('GET /user');
  const past = String(Math.floor(Date.now() / 1000) - 30);
  github.state.canned.push({ status: 429, headers: trimmed(github, 'core', 0, ['x-ratelimit-limit'], { 'x-ratelimit-reset': past }), body: { ...PRIMARY, status: '429' } });
  const started = Date.now();
  const err = await deferred(octokit.request('POST /repos/{owner}/{repo}/issues', { owner: 'o', repo: 'r', title: 't' }), 'rest-reserve');
  assert.ok(err.resumeAfterMs >= started + HOUR - 5_000, `resume an hour out, not ${err.resumeAfter}`);
  assert.ok(err.resumeAfterMs <= Date.now() + HOUR + 120_000);
}));

test('a GraphQL RATE_LIMITED body whose headers say remaining 1 and an old reset defers GraphQL', () => withGitHub({ limit: 5000, graphql: 4000 }, async (github) => {
  const octokit = client(github);
  const old = String(Math.floor(Date.now() / 1000) - 600);
  github.state.canned.push({
    status: 200,
    headers: trimmed(github, 'graphql', 1, [], { 'x-ratelimit-reset': old }),
    body: { errors: [{ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }] },
  });
  const err = await deferred(octokit.graphql('query { viewer { login } }'), 'graphql-reserve');
  assert.ok(err.resumeAfterMs >= Date.now() + HOUR - 10_000, `resume an hour out, not ${err.resumeAfter}`);
  // The graphql bucket stays spent: the next query is stopped before it is sent.
  const before = github.sent('/graphql');
  await deferred(octokit.graphql('query { viewer { login } }'), 'graphql-reserve');
  assert.equal(github.sent('/graphql'), before);
}));

test('a 403 from the search bucket defers only work that needs search', () => withGitHub({ limit: 5000, core: 4000 }, async (github) => {
  const octokit = client(github);
  await octokit.request('GET /search/issues', { q: 'is:open' });
  github.state.search = 0; // spent elsewhere since
  const err = await deferred(octokit.request('GET /search/issues', { q: 'is:open' }), 'rest-reserve');
  assert.ok(err.resumeAfterMs >= github.state.reset * 1000, 'resume after the search reset');
  assert.match(err.message, /search/);
  assert.equal((await octokit.request('GET /user')).status, 200, 'core work goes on');
  await deferred(octokit.request('GET /search/repositories', { q: 'x' }), 'rest-reserve');
  await deferred(octokit.request('GET /search/issues', { q: 'is:closed' }), 'rest-reserve');
  assert.equal(github.sent('/search/repositories'), 0, 'the next searches never left');
  assert.equal(github.sent('/search/issues'), 2);
  // Code search is a bucket of its own (code_search): not spent by the search limit.
  github.state.search = 30;
  assert.equal((await octokit.request('GET /search/code', { q: 'x' })).status, 200);
}));

test('a search answer that leaves 0 defers the next search before it is sent', () => withGitHub({ limit: 5000, core: 4000 }, async (github) => {
  github.state.search = 2;
  const octokit = client(github);
  await octokit.request('GET /search/issues', { q: 'a' }); // 200, x-ratelimit-remaining: 1
  await octokit.request('GET /search/issues', { q: 'b' }); // 200, x-ratelimit-remaining: 0
  const err = await deferred(octokit.request('GET /search/issues', { q: 'c' }), 'rest-reserve');
  assert.ok(err.resumeAfterMs >= github.state.reset * 1000, 'resume after the search reset');
  assert.match(err.message, /search/);
  assert.equal(github.sent('/search/issues'), 2, 'the third search never left');
  assert.equal((await octokit.request('GET /user')).status, 200, 'core work still goes');
}));

test('a fresh remaining-0 answer wins over the older snapshot of its bucket', () => withGitHub({ limit: 5000, core: 4000 }, async (github) => {
  const octokit = client(github);
  await octokit.request('GET /user');
  // Another process spent the window; this answer names an earlier reset than the snapshot.
  const earlier = String(github.state.reset - 1200);
  github.state.canned.push({ status: 403, headers: trimmed(github, 'core', 0, [], { 'x-ratelimit-reset': earlier }), body: { ...PRIMARY, status: '403' } });
  const err = await deferred(octokit.request('GET /user'), 'rest-reserve');
  assert.ok(err.resumeAfterMs >= Number(earlier) * 1000);
  const before = github.requests.length;
  await deferred(octokit.request('GET /user'), 'rest-reserve');
  assert.equal(github.requests.length, before);
}));

test('a permissions 403 and a 401 stay what they are', () => withGitHub({ limit: 5000, core: 4000 }, async (github) => {
  const octokit = client(github);
  github.state.canned.push({ status: 403, headers: github.headers('core', 3990), body: { message: 'Resource not accessible by integration', documentation_url: 'https://docs.github.com/rest/issues/issues#create-an-issue', status: '403' } });
  await httpError(octokit.request('POST /repos/{owner}/{repo}/issues', { owner: 'o', repo: 'r', title: 't' }), 403);
  // A 401's headers are the anonymous per-IP bucket (remaining 0 of 60): not the token's limit.
  github.state.canned.push({ status: 401, headers: { ...github.headers('core', 0), 'x-ratelimit-limit': '60', 'x-ratelimit-used': '60' }, body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' } });
  await httpError(octokit.request('GET /user'), 401);
  assert.equal((await octokit.request('GET /user')).status, 200, 'and nothing was held');
}));

test('parallel writes count what is in flight: with 505 left and a reserve of 500, 5 of 50 are sent', () => withGitHub({ limit: 5000, core: 505 }, async (github) => {
  const octokit = client(github, { restReserve: 500 });
  github.state.delayMs = 50;
  const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => octokit.request('POST /repos/{owner}/{repo}/issues', { owner: 'o', repo: 'r', title: `t${i}` })));
  const sent = results.filter((r) => r.status === 'fulfilled');
  const stopped = results.filter((r) => r.status === 'rejected');
  assert.equal(sent.length, 5);
  assert.equal(github.sent('/repos/o/r/issues'), 5, 'only what fits left the process');
  assert.equal(stopped.length, 45);
  for (const { reason } of stopped) {
    assert.ok(reason instanceof DeferredError, String(reason));
    assert.equal(reason.reason, 'rest-reserve');
  }
  assert.ok(github.state.core >= 500, `the reserve holds: ${github.state.core} left`);
}));

test('GraphQL sent as a raw body is costed in points, not as one REST call', () => withGitHub({ limit: 1000, core: 900, graphql: 140 }, async (github) => {
  // GitHub's documented example costs 51 points: 140 - 51 crosses the reserve of 100.
  const costly = 'query { viewer { repositories(first: 100) { nodes { issues(first: 50) { nodes { labels(first: 60) { nodes { name } } } } } } } }';
  const octokit = client(github);
  await deferred(octokit.request('POST /graphql', { data: { query: costly } }), 'graphql-reserve');
  await deferred(octokit.request('POST /graphql', { query: costly }), 'graphql-reserve');
  await deferred(octokit.request('POST /graphql', { data: JSON.stringify({ query: costly }) }), 'graphql-reserve');
  assert.equal(github.sent('/graphql'), 0, 'none of them left');
  // A cheap raw query fits and is sent.
  const answer = await octokit.request('POST /graphql', { data: { query: 'query { viewer { login } }' } });
  assert.equal(answer.status, 200);
  assert.equal(github.sent('/graphql'), 1);
}));
