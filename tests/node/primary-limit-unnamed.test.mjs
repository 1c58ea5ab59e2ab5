// GitHub's documented primary-limit answer names no bucket: a 403 with x-ratelimit-limit,
// x-ratelimit-remaining 0 and x-ratelimit-reset, and no x-ratelimit-resource. It is recorded
// against the bucket the request's path names, else core: remaining 0 until its reset, or for
// the default window (one hour) when it gives no reset. Through `deferral observe`, the Action
// deciding with that ledger file, and the Octokit plugin.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/core';
import { deferral, DeferredError } from 'deferral/octokit';
import { runCli, runAction } from '../support/run-action.mjs';
import { startFakeGitHub, rateLimitBody } from '../support/fake-github.mjs';
import { startGitHub } from '../support/octokit-github.mjs';

const dir = mkdtempSync(join(tmpdir(), 'deferral-unnamed-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const HOUR_S = 3600;
const nowS = () => Math.floor(Date.now() / 1000);
// GitHub's example (docs "Rate limits for the REST API"), with today's clock.
const documented = (reset) => [
  '--status', '403',
  '--header', `date: ${new Date().toUTCString()}`,
  '--header', 'x-ratelimit-limit: 60',
  '--header', 'x-ratelimit-remaining: 0',
  '--header', 'x-ratelimit-used: 60',
  ...(reset === undefined ? [] : ['--header', `x-ratelimit-reset: ${reset}`]),
];
const ledgerOf = (path) => JSON.parse(readFileSync(path, 'utf8'));

test('deferral observe records the documented 403 without x-ratelimit-resource against core', async () => {
  const ledger = join(dir, 'documented.json');
  const reset = nowS() + 1200;
  const run = await runCli(['observe', '--ledger-file', ledger, ...documented(reset)]);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.equal(run.json.kind, 'primary-rest');
  assert.equal(run.json.resource, 'core', run.stdout);
  assert.equal(run.json.remaining, 0, run.stdout);
  const core = ledgerOf(ledger).resources.core;
  assert.deepEqual([core?.limit, core?.remaining, core?.reset], [60, 0, reset], JSON.stringify(ledgerOf(ledger)));
});

test('--path names the bucket of an unnamed primary limit', async () => {
  const ledger = join(dir, 'search.json');
  const reset = nowS() + 50;
  const run = await runCli(['observe', '--ledger-file', ledger, ...documented(reset), '--path', '/search/issues']);
  assert.equal(run.status, 0, run.stdout);
  assert.equal(run.json.resource, 'search', run.stdout);
  assert.equal(ledgerOf(ledger).resources.search?.remaining, 0);
  assert.equal(ledgerOf(ledger).resources.core, undefined, 'core is not touched');
});

test('a 429 with remaining 0 and no reset holds core for the default window', async () => {
  const ledger = join(dir, 'no-reset.json');
  const before = nowS();
  const run = await runCli(['observe', '--ledger-file', ledger, ...documented(undefined).map((a) => (a === '403' ? '429' : a))]);
  assert.equal(run.status, 0, run.stdout);
  assert.equal(run.json.resource, 'core', run.stdout);
  const core = ledgerOf(ledger).resources.core;
  assert.equal(core?.remaining, 0, JSON.stringify(ledgerOf(ledger)));
  assert.ok(core.reset >= before + HOUR_S - 5 && core.reset <= nowS() + HOUR_S + 5, `reset an hour out: ${core.reset}`);
});

test('the Action with that ledger file defers although GET /rate_limit still says the window is full', async () => {
  const ledger = join(dir, 'action.json');
  const reset = nowS() + 1800;
  const observed = await runCli(['observe', '--ledger-file', ledger, ...documented(reset)]);
  assert.equal(observed.status, 0, observed.stdout);
  // GET /rate_limit reads the same window full (the answer GitHub gave before the 403).
  const full = () => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8', date: new Date().toUTCString() }, body: rateLimitBody({ now: reset - 1800, core: [4990, 1800] }) });
  const gh = await startFakeGitHub({ scenario: full });
  try {
    const run = await runAction(gh.url, { 'ledger-file': ledger, plan: JSON.stringify({ rest: [{ method: 'POST', route: '/repos/{owner}/{repo}/issues', count: 3 }] }) });
    assert.equal(run.outputs.status, 'deferred', run.stdout);
    assert.equal(run.outputs.reason, 'rest-reserve');
    assert.ok(Date.parse(run.outputs['resume-after']) >= reset * 1000, `${run.outputs['resume-after']} is after the reset`);
    run.cleanup();
  } finally {
    await gh.close();
  }
});

test('the Octokit plugin takes the documented 403 without x-ratelimit-resource as core spent', async () => {
  const github = await startGitHub({ limit: 5000, core: 4000 });
  try {
    const octokit = new (Octokit.plugin(deferral))({ baseUrl: github.url, auth: 'test-token-not-real', deferral: { scope: { job: 'unnamed' } } });
    await octokit.request('GET /user');
    const reset = nowS() + 900;
    const head = { date: new Date().toUTCString(), 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '60', 'x-ratelimit-reset': String(reset) };
    github.state.canned.push({ status: 403, headers: head, body: { message: 'API rate limit exceeded for 127.0.0.1.', documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting' } });
    const first = await octokit.request('GET /repos/{owner}/{repo}', { owner: 'o', repo: 'r' }).catch((e) => e);
    assert.ok(first instanceof DeferredError, `${first?.name}: ${first?.message}`);
    assert.ok(first.resumeAfterMs >= reset * 1000, 'resume after its reset');
    const sent = github.requests.length;
    const second = await octokit.request('GET /user').catch((e) => e);
    assert.ok(second instanceof DeferredError, `${second?.name}: ${second?.message}`);
    assert.equal(github.requests.length, sent, 'nothing more was sent into the spent bucket');
  } finally {
    await github.stop();
  }
});
