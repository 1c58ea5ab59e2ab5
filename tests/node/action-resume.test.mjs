// Black-box runs of dist/main.js in resume mode: the fresh preflight, then the gate.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeGitHub } from '../support/fake-github.mjs';
import { runAction, runnerEnv } from '../support/run-action.mjs';
import { dueReceipt, makeReceipt, scopeOf } from '../support/receipts.mjs';
import { validateReceipt } from '../../dist/lib/wasm.js';

const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));
async function api(scenario) {
  const s = await startFakeGitHub({ scenario });
  servers.push(s);
  return s;
}
const scopeFor = (gh) => scopeOf(runnerEnv(gh.url));

test('resume with a valid receipt and fresh approval: ready after one request', async () => {
  const gh = await api('ready');
  const receipt = dueReceipt({ scope: scopeFor(gh) });
  const run = await runAction(gh.url, { receipt: JSON.stringify(receipt), approval: 'granted' });
  assert.equal(run.status, 0, run.stdout);
  assert.equal(run.outputs.status, 'ready');
  assert.equal(gh.requests.length, 1);
  run.cleanup();
});

test('resume still limited: a new receipt with the same bindings', async () => {
  const gh = await api('rest-low');
  const receipt = dueReceipt({ scope: scopeFor(gh) });
  const run = await runAction(gh.url, { receipt: JSON.stringify(receipt), approval: 'granted', 'on-deferral': 'succeed' });
  assert.equal(run.outputs.status, 'deferred', run.stdout);
  const fresh = validateReceipt(run.outputs['deferred-receipt']);
  assert.ok(fresh.ok);
  assert.deepEqual(fresh.receipt.bindings, receipt.bindings);
  assert.ok(fresh.receipt.issued_at_ms > receipt.issued_at_ms, 'a new receipt, not the old one edited');
  assert.equal(gh.requests.length, 1);
  run.cleanup();
});

test('resume without fresh approval when the receipt requires it: blocked, no request', async () => {
  const gh = await api('ready');
  const run = await runAction(gh.url, { receipt: JSON.stringify(dueReceipt({ scope: scopeFor(gh) })) });
  assert.equal(run.status, 1);
  assert.equal(run.outputs.status, 'blocked');
  assert.match(run.stdout, /Blocked \(approval-required\)/);
  // The whole message, as the domain's reason and the driver's words for the flags (issue 20).
  assert.ok(run.stdout.includes("the receipt requires fresh approval and none was granted: once this run has it, pass --approval granted (the Action's input approval: granted), or have the gate emit receipts with --fresh-approval never"), run.stdout);
  assert.equal(gh.requests.length, 0);
  run.cleanup();
});

test('a receipt that does not require fresh approval resumes without it', async () => {
  const gh = await api('ready');
  const run = await runAction(gh.url, { receipt: JSON.stringify(dueReceipt({ scope: scopeFor(gh), freshApproval: false })) });
  assert.equal(run.outputs.status, 'ready', run.stdout);
  run.cleanup();
});

test('resume with mismatched bindings: blocked binding-mismatch, no request', async () => {
  const gh = await api('ready');
  const receipt = dueReceipt({ scope: scopeFor(gh) });
  const scope = await runAction(gh.url, { receipt: JSON.stringify(receipt), approval: 'granted', scope: 'another job' });
  assert.equal(scope.outputs.status, 'blocked');
  assert.match(scope.stdout, /Blocked \(binding-mismatch\): the fresh scope_digest differs/);
  assert.ok(scope.stdout.includes("the fresh scope_digest differs from the receipt's; this is not the deferred work, or the resume was not given what the gate was: scope_digest comes from --scope (default: GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_WORKFLOW_REF and GITHUB_JOB)"), scope.stdout);
  const request = await runAction(gh.url, { receipt: JSON.stringify(receipt), approval: 'granted', request: '{"labels":["other"]}' });
  assert.match(request.stdout, /binding-mismatch.*request_digest/);
  assert.ok(request.stdout.includes('request_digest comes from --request, the scope, and the policy --rest-reserve, --graphql-reserve, --resume-buffer and --resume-window: give the resume the same values as the gate'), request.stdout);
  const policy = await runAction(gh.url, { receipt: JSON.stringify(receipt), approval: 'granted', 'rest-reserve': '20%' });
  assert.match(policy.stdout, /binding-mismatch.*request_digest/, 'the policy is bound inside the request digest');
  const plan = await runAction(gh.url, { receipt: JSON.stringify(receipt), approval: 'granted', plan: '{"rest":[{"method":"GET","route":"/x"}]}' });
  assert.match(plan.stdout, /binding-mismatch.*plan_digest/);
  assert.ok(plan.stdout.includes('the resume was not given what the gate was: plan_digest comes from --plan\n'), plan.stdout);
  assert.equal(gh.requests.length, 0);
  for (const r of [scope, request, policy, plan]) { assert.equal(r.status, 1); r.cleanup(); }
});

test('resume-jitter is not bound: a resume with another jitter is ready (the operator guide says so)', async () => {
  const gh = await api('ready');
  const run = await runAction(gh.url, { receipt: JSON.stringify(dueReceipt({ scope: scopeFor(gh) })), approval: 'granted', 'resume-jitter': '10m' });
  assert.equal(run.outputs.status, 'ready', run.stdout);
  run.cleanup();
});

test('resume too early: blocked not-yet-due', async () => {
  const gh = await api('ready');
  const now = Date.now();
  const receipt = makeReceipt({ issuedMs: now, resetMs: now + 600_000, scope: scopeFor(gh) });
  const run = await runAction(gh.url, { receipt: JSON.stringify(receipt), approval: 'granted' });
  assert.equal(run.outputs.status, 'blocked');
  assert.match(run.stdout, /Blocked \(not-yet-due\)/);
  assert.equal(gh.requests.length, 0);
  run.cleanup();
});

test('resume too late: blocked expired', async () => {
  const gh = await api('ready');
  const now = Date.now();
  const receipt = makeReceipt({ issuedMs: now - 10 * 3_600_000, resetMs: now - 10 * 3_600_000 + 60_000, scope: scopeFor(gh) });
  const run = await runAction(gh.url, { receipt: JSON.stringify(receipt), approval: 'granted' });
  assert.equal(run.outputs.status, 'blocked');
  assert.match(run.stdout, /Blocked \(expired\)/);
  assert.equal(gh.requests.length, 0);
  run.cleanup();
});

test('an invalid receipt input: error naming the contract code, no request', async () => {
  const gh = await api('ready');
  const receipt = { ...dueReceipt({ scope: scopeFor(gh) }), token: 'x' };
  const run = await runAction(gh.url, { receipt: JSON.stringify(receipt) });
  assert.equal(run.outputs.status, 'error');
  assert.match(run.stdout, /Error \(invalid-receipt\): the receipt is invalid: unknown-field at \$\.token/);
  assert.equal(gh.requests.length, 0);
  run.cleanup();
});
