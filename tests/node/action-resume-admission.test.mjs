// A resume run (the Action's `receipt` input) with coordinator-pool asks the pool to admit its
// plan before the work proceeds, as a gate does: admitted, it is ready with an admission id;
// refused, it is deferred again to the pool's window with a new receipt of the same work. The
// built Action (dist/main.js) against a loopback GitHub and a loopback stand-in of the port's
// pool side that records every request (tests/support/pool-port.mjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeGitHub, rateLimitBody } from '../support/fake-github.mjs';
import { startPoolPort } from '../support/pool-port.mjs';
import { runAction, runnerEnv } from '../support/run-action.mjs';
import { dueReceipt, scopeOf } from '../support/receipts.mjs';
import { validateReceipt } from '../../dist/lib/wasm.js';

const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));
async function started(server) {
  servers.push(await server);
  return servers.at(-1);
}
const PLAN = { rest: [{ method: 'POST', route: '/repos/{owner}/{repo}/issues/{issue_number}/comments', count: 3000 }] };
const admissions = (port) => port.requests.filter((r) => r.path === '/v1/admissions');

// GitHub's core window: 4,990 of 5,000 left, resetting at RESET_S.
const RESET_S = Math.floor(Date.now() / 1000) + 2400;
const github = () => ({ status: 200, headers: { 'content-type': 'application/json; charset=utf-8', date: new Date().toUTCString() }, body: rateLimitBody({ now: RESET_S - 2400, core: [4990, 2400] }) });

async function resume(port, extra = {}) {
  const gh = await started(startFakeGitHub({ scenario: github }));
  const receipt = dueReceipt({ scope: scopeOf(runnerEnv(gh.url)), plan: PLAN });
  const run = await runAction(gh.url, {
    receipt: JSON.stringify(receipt), approval: 'granted', plan: JSON.stringify(PLAN),
    'coordinator-url': port.url, 'coordinator-token': port.token,
    'coordinator-launch': 'workflow-dispatch:octo/app/sync.yml@main', 'coordinator-pool': 'app-42', ...extra,
  });
  return { gh, receipt, run };
}

test('a resume with coordinator-pool asks for an admission before it proceeds', async () => {
  const port = await started(startPoolPort());
  const { gh, run } = await resume(port);
  assert.equal(run.outputs.status, 'ready', run.stdout);
  const asked = admissions(port);
  assert.equal(asked.length, 1, `one admission asked: ${JSON.stringify(port.requests.map((r) => r.path))}`);
  assert.equal(asked[0].authorization, `Bearer ${port.token}`);
  assert.equal(asked[0].body.pool, 'app-42');
  assert.deepEqual(asked[0].body.cost, { rest: 3000, graphql: 0, content: 3000 });
  assert.equal(asked[0].body.rate.rest.remaining, 4990);
  assert.equal(run.outputs['admission-id'], '17');
  assert.equal(gh.requests.length, 1, 'GitHub still gets exactly one request');
  run.cleanup();
});

test('a resume the pool refuses is deferred again to the pool\'s window, not run', async () => {
  // The pool has spent 1,990 of that window for other runners: 3,000 more would leave 0.
  const reset = RESET_S * 1000;
  const port = await started(startPoolPort({
    answer: ({ pool }) => ({ status: 200, body: { admitted: false, pool, reason: 'pool app-42: 3000 more rest would leave 0, below the reserve of 500', window: { rest: { limit: 5000, remaining: 3000, reserve: 500, reset_ms: reset } } } }),
  }));
  const { receipt, run } = await resume(port, { 'on-deferral': 'succeed' });
  assert.equal(admissions(port).length, 1);
  assert.equal(run.outputs.status, 'deferred', run.stdout);
  assert.equal(run.outputs['admission-id'], '');
  const fresh = validateReceipt(run.outputs['deferred-receipt']);
  assert.ok(fresh.ok, JSON.stringify(fresh.error));
  assert.deepEqual(fresh.receipt.bindings, receipt.bindings, 'the same work, deferred again');
  assert.ok(fresh.receipt.resume_after_ms >= reset, `after the pool's reset: ${run.outputs['resume-after']}`);
  run.cleanup();
});
