// Upstream's host API on this core: createResumableDeferralHost(port, nowMs) with an in-memory
// durable port {schedule, state, cancel}, called the way upstream's callers call it (scenarios
// of upstream's test/resumable-deferral-host.test.ts, written here as this project's own).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createResumableDeferralHost, createGovernedHandoffReceipt, INVALID_TRANSITION,
} from 'deferral';

const NOW = 1_800_000_000_000;
const hex = (c) => c.repeat(64);
const handoff = (over = {}) => createGovernedHandoffReceipt({
  resource: 'graphql', issuedAtMs: NOW, resumeAfterMs: NOW + 100, resumeByMs: NOW + 1000,
  scopeDigest: hex('a'), requestDigest: hex('b'), planDigest: hex('c'), freshApprovalRequired: true, ...over,
});

/** A port that keeps one state in memory and counts its calls; the clock is fixed. */
function fixture(clock = NOW + 100, handles = { wakeupDigest: hex('d'), cancellationDigest: hex('e') }) {
  const calls = { schedule: [], state: 0, cancel: 0 };
  let state = 'deferred';
  const port = {
    schedule: async (receipt) => { calls.schedule.push(receipt); return handles; },
    state: async () => { calls.state += 1; return state; },
    cancel: async () => { calls.cancel += 1; state = 'cancelled'; },
  };
  return { host: createResumableDeferralHost(port, () => clock), calls, setState: (s) => { state = s; } };
}

const transition = (code) => (err) => {
  assert.ok(err instanceof TypeError, String(err));
  assert.equal(err.message, INVALID_TRANSITION);
  if (code) assert.equal(err.code, code);
  return true;
};

test('retain answers the retained receipt only after the port scheduled it', async () => {
  const { host, calls } = fixture(NOW);
  const receipt = await host.retain(handoff());
  assert.equal(calls.schedule.length, 1);
  assert.equal(calls.schedule[0].ownership.disposition, 'handoff', 'the port is given the handoff receipt');
  assert.deepEqual(receipt.ownership, { disposition: 'retained', mode: 'durable-host', wakeup_digest: hex('d'), cancellation_digest: hex('e') });
  assert.deepEqual(receipt.bindings, handoff().bindings);
});

test('resume runs the fresh process once with the bindings and the approval flag', async () => {
  const { host, setState } = fixture();
  const receipt = await host.retain(handoff());
  setState('resumable');
  const seen = [];
  const result = await host.resume(receipt, async (bindings, fresh) => { seen.push([bindings, fresh]); return { status: 'complete' }; });
  assert.deepEqual(result, { status: 'complete' });
  assert.deepEqual(seen, [[receipt.bindings, true]]);
});

test('an unavailable, cancelled, early or expired wake-up never runs the fresh process', async () => {
  const first = fixture();
  const receipt = await first.host.retain(handoff());
  let runs = 0;
  const run = async () => { runs += 1; return { status: 'complete' }; };
  assert.deepEqual(await first.host.resume(receipt, run), { status: 'blocked' }, 'deferred at the port: blocked');
  await first.host.cancel(receipt);
  assert.equal(first.calls.cancel, 1);
  assert.deepEqual(await first.host.resume(receipt, run), { status: 'blocked' }, 'cancelled: blocked');
  for (const state of ['expired', 'complete', 'blocked', 'no-such-state', undefined]) {
    const other = fixture();
    other.setState(state);
    assert.deepEqual(await other.host.resume(receipt, run), { status: 'blocked' }, `port state ${state}`);
  }
  await assert.rejects(fixture(NOW + 99).host.resume(receipt, run), transition('not-yet-due'));
  await assert.rejects(fixture(NOW + 1001).host.resume(receipt, run), transition('expired'));
  assert.equal(runs, 0);
  // The edges of the window are inside it.
  for (const clock of [NOW + 100, NOW + 1000]) {
    const edge = fixture(clock);
    edge.setState('resumable');
    assert.equal((await edge.host.resume(receipt, run)).status, 'complete');
  }
  assert.equal(runs, 2);
});

test('a fresh process may defer again with a new receipt, without replaying the request', async () => {
  const { host, setState } = fixture();
  const receipt = await host.retain(handoff());
  setState('resumable');
  const next = createGovernedHandoffReceipt({ resource: 'rest', issuedAtMs: NOW + 100, scopeDigest: hex('a'), requestDigest: hex('f'), planDigest: null, freshApprovalRequired: true });
  const result = await host.resume(receipt, async () => ({ status: 'deferred', receipt: next }));
  assert.equal(result.status, 'deferred');
  assert.equal(result.receipt.reason, 'rest-reserve');
  assert.notEqual(result.receipt.bindings.request_digest, receipt.bindings.request_digest);
  assert.deepEqual(result.receipt, next);
});

test('stricter than upstream: another scope on re-deferral is blocked, a bad new receipt throws', async () => {
  const { host, setState } = fixture();
  const receipt = await host.retain(handoff());
  setState('resumable');
  const otherScope = createGovernedHandoffReceipt({ resource: 'rest', issuedAtMs: NOW + 100, scopeDigest: hex('9'), requestDigest: hex('b'), planDigest: hex('c'), freshApprovalRequired: true });
  assert.deepEqual(await host.resume(receipt, async () => ({ status: 'deferred', receipt: otherScope })),
    { status: 'blocked', code: 'binding-mismatch', field: 'scope_digest' });
  await assert.rejects(host.resume(receipt, async () => ({ status: 'deferred' })), (err) => {
    assert.ok(err instanceof TypeError);
    assert.deepEqual([err.message, err.code], ['invalid deferred receipt', 'not-an-object']);
    return true;
  });
  await assert.rejects(host.resume(receipt, async () => ({ status: 'done' })), transition('invalid-outcome'));
  await assert.rejects(host.resume(receipt, 'not a function'), /fresh process as a function/);
});

test('retain refuses a retained or expired receipt, and handles that are not digests', async () => {
  const { host, calls } = fixture(NOW);
  const receipt = await host.retain(handoff());
  await assert.rejects(host.retain(receipt), transition('already-retained'));
  await assert.rejects(fixture(NOW + 1001).host.retain(handoff()), transition('expired'));
  await assert.rejects(host.cancel(handoff()), transition('not-retained'));
  await assert.rejects(host.resume(handoff(), async () => ({ status: 'complete' })), transition('not-retained'));
  await assert.rejects(host.retain('{"schema":1}'), { name: 'TypeError', message: 'invalid deferred receipt', code: 'missing-field' });
  assert.equal(calls.schedule.length, 1, 'only the first, valid retain reached the port');
  const raw = fixture(NOW, { wakeupDigest: 'raw-job-id', cancellationDigest: hex('e') });
  await assert.rejects(raw.host.retain(handoff()), { message: 'invalid deferred receipt', code: 'invalid-digest', path: '$.ownership.wakeup_digest' });
});

test('receipts as text work like objects, and the default clock is Date.now', async () => {
  const now = Date.now();
  const port = { schedule: async () => ({ wakeupDigest: hex('d'), cancellationDigest: hex('e') }), state: async () => 'resumable', cancel: async () => {} };
  const host = createResumableDeferralHost(port);
  const text = JSON.stringify(handoff({ issuedAtMs: now - 1000, resumeAfterMs: now - 500, resumeByMs: now + 60_000 }));
  const receipt = await host.retain(text);
  assert.deepEqual(await host.resume(JSON.stringify(receipt), async () => ({ status: 'complete' })), { status: 'complete' });
});

test('the two forms are told apart by shape; half a port is named', () => {
  assert.throws(() => createResumableDeferralHost({ schedule: async () => ({}), state: async () => 'deferred' }),
    { name: 'TypeError', message: /missing: cancel/ });
  assert.throws(() => createResumableDeferralHost({ url: 'http://127.0.0.1:1', token: 't' }, () => NOW),
    { name: 'TypeError', message: /missing: schedule, state, cancel/ });
  const client = createResumableDeferralHost({ url: 'http://127.0.0.1:1', token: 'test-token-not-real' });
  assert.equal(typeof client.claim, 'function', 'the options form keeps its serve client API');
  assert.throws(() => createResumableDeferralHost({ token: 't' }), /needs a url/);
  assert.throws(() => createResumableDeferralHost({ schedule() {}, state() {}, cancel() {} }, 5), /nowMs must be a function/);
  // Each refusal carries the core's code, as every refusal of the library does.
  assert.throws(() => createResumableDeferralHost({ schedule() {} }), { name: 'TypeError', code: 'invalid-durable-port' });
  assert.throws(() => createResumableDeferralHost({ schedule() {}, state() {}, cancel() {} }, 5), { name: 'TypeError', code: 'invalid-clock' });
});

test('a wrong fresh process or clock is refused with the core\'s code and message', async () => {
  const { host, setState } = fixture();
  const receipt = await host.retain(handoff());
  setState('resumable');
  await assert.rejects(host.resume(receipt, 'not a function'), { name: 'TypeError', code: 'invalid-fresh-process', message: 'resume needs the fresh process as a function, not string' });
  await assert.rejects(fixture(NOW + 0.5).host.resume(receipt, async () => ({ status: 'complete' })), { name: 'TypeError', code: 'invalid-now' });
  await assert.rejects(fixture(NOW + 99).host.resume(receipt, async () => ({ status: 'complete' })), { message: INVALID_TRANSITION, code: 'not-yet-due', detail: 'the receipt is not due for another 1 ms' });
});

test('a clock that does not give whole epoch milliseconds is refused before the port is asked', async () => {
  for (const clock of [NOW + 0.5, -1, Number.NaN]) {
    const { host, calls } = fixture(clock);
    await assert.rejects(host.retain(handoff()), { name: 'TypeError', message: /whole number/ });
    assert.equal(calls.schedule.length, 0);
  }
});
