// The JS durable-port library against the real `deferral-host serve`: retain, status, cancel
// and resume end to end, with the core refusing bad receipts and illegal steps before any
// request is sent, and a fresh process launched by `tick` reporting its own outcome.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPortClient, createResumableDeferralHost, PortError } from 'deferral';
import { startServe } from '../support/host-serve.mjs';
import { dueReceipt, makeReceipt } from '../support/receipts.mjs';
import { repoRoot } from './helpers.mjs';

const SCOPE = { repository: 'octo/app', job: 'sync' };
let serve;
before(async () => { serve = await startServe(); });
after(async () => { assert.equal(await serve.stop(), 0, 'serve stops cleanly on SIGTERM'); });

const hostFor = (token = serve.token) => createResumableDeferralHost({ url: serve.url, token }, { launch: 'workflow-dispatch:octo/app/sync.yml@main' });
const sentLines = (pattern) => serve.log().filter((l) => pattern.test(l));

/**
 * Waits until serve's log holds what `ready` looks for: serve writes a request's line on its
 * stderr after it answers, so the line can reach this process after the answer does.
 */
async function logged(ready, what) {
  const deadline = Date.now() + 5000;
  while (!ready(serve.log())) {
    if (Date.now() > deadline) throw new Error(`serve never logged ${what}: ${serve.log().slice(-5).join(' | ')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function refused(promise, status, code) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof PortError, String(err));
    assert.deepEqual([err.status, err.code], [status, code], err.message);
    return true;
  });
}

test('retain, status and cancel; a terminal deferral is refused locally', async () => {
  const host = hostFor();
  const handoff = dueReceipt({ scope: SCOPE });
  const { id, receipt, cancellationHandle } = await host.retain(handoff);
  assert.match(id, /^d[0-9a-f]{24}$/);
  assert.match(cancellationHandle, /^[0-9a-f]{64}$/);
  assert.equal(receipt.ownership.disposition, 'retained');
  assert.deepEqual(receipt.bindings, handoff.bindings);
  const status = await host.status(id);
  assert.deepEqual([status.state, status.reentries, status.launch], ['deferred', 0, 'workflow-dispatch:octo/app/sync.yml@main']);
  assert.deepEqual(status, serve.host(['status', '--json', id]).json, 'the port answers what status --json prints');

  await refused(host.cancel(id, 'f'.repeat(64)), 403, 'wrong-handle');
  assert.equal((await host.status(id)).state, 'deferred', 'a wrong handle changes nothing');
  const cancelled = await host.cancel(id, cancellationHandle);
  assert.deepEqual([cancelled.state, cancelled.cause], ['cancelled', 'operator']);
  const sent = sentLines(/\/cancel /).length;
  await refused(host.cancel(id, cancellationHandle), 0, 'illegal-transition');
  await host.status(id);
  assert.equal(sentLines(/\/cancel /).length, sent, 'the illegal cancel never reached the host');
});

test('invalid and retained receipts are refused before anything is sent', async () => {
  const host = hostFor();
  const before = sentLines(/^POST \/v1\/deferrals /).length;
  await refused(host.retain('{"schema":1}'), 0, 'missing-field');
  const bad = { ...dueReceipt({ scope: SCOPE }), bindings: { scope_digest: 'A'.repeat(64), request_digest: 'b'.repeat(64), plan_digest: null } };
  await refused(host.retain(bad), 0, 'invalid-digest');
  const { receipt } = await host.retain(dueReceipt({ scope: SCOPE }));
  await refused(host.retain(receipt), 0, 'already-retained');
  await refused(host.retain(dueReceipt({ scope: SCOPE }), { launch: '' }), 0, 'invalid-launch');
  // The host's own checks still apply to what the library lets through.
  await refused(host.retain(dueReceipt({ scope: SCOPE }), { launch: 'ftp:nowhere' }), 403, 'launch-not-allowed');
  const reads = sentLines(/^GET /).length;
  await host.status('d000000000000000000000000').catch(() => {}); // its log line follows any stray POST
  await logged((log) => log.filter((l) => l.startsWith('GET ')).length > reads, 'the status read');
  assert.equal(sentLines(/^POST \/v1\/deferrals /).length, before + 2, 'only the valid receipts were sent');
});

test('the package entry exports the library', async () => {
  const entry = await import('deferral');
  assert.equal(entry.createResumableDeferralHost, createResumableDeferralHost);
  assert.equal(entry.createPortClient, createPortClient);
});

test('the port client refuses a wrong token and reports an unreachable port', async () => {
  await refused(hostFor('wrong-token-0123456789abcdef').status('dx'), 401, 'unauthorized');
  await refused(hostFor().status('d000000000000000000000000'), 404, 'not-found');
  const dead = createPortClient({ url: 'http://127.0.0.1:1', token: serve.token, timeoutMs: 2000 });
  await assert.rejects(dead.get('dx'), (err) => {
    assert.deepEqual([err.status, err.code], [0, 'port-unreachable']);
    assert.ok(!err.message.includes(serve.token), 'the token is never in a message');
    return true;
  });
  assert.throws(() => createPortClient({ url: serve.url }), /bearer token/);
});

/** Records a due receipt launching the resume script, runs one tick, answers what it saw. */
async function launchOnce(outcome) {
  const resultFile = join(serve.dir, `result-${outcome}.json`);
  const script = join(repoRoot, 'tests/support/resume-via-port.mjs');
  const launch = `exec:'${process.execPath}' '${script}' '${serve.url}' '${serve.tokenFile}' ${outcome} '${resultFile}'`;
  const host = hostFor();
  const { id, cancellationHandle } = await host.retain(dueReceipt({ scope: SCOPE }), { launch });
  const tick = serve.host(['tick', id]);
  assert.equal(tick.status, 0, tick.stderr);
  return { host, id, cancellationHandle, tick: tick.json, seen: JSON.parse(readFileSync(resultFile, 'utf8')) };
}

test('a launched fresh process proves its claim and reports complete through the port', async () => {
  const { host, id, tick, seen } = await launchOnce('complete');
  assert.equal(seen.error, undefined, JSON.stringify(seen.error));
  assert.deepEqual([seen.claim.attempt, seen.claim.state], [1, 'resumable']);
  assert.equal(seen.claim.receipt.ownership.disposition, 'retained');
  assert.deepEqual([seen.result.state, seen.result.cause], ['complete', 'completed']);
  // The ticker's own late write lost the compare-and-set: the reported outcome stands.
  assert.equal(tick.launched[0].error.code, 'conflict');
  const status = await host.status(id);
  assert.deepEqual([status.state, status.reentries], ['complete', 1]);
  const events = serve.host(['show', '--json', id]).json.events.map((e) => [e.event, e.detail]);
  assert.deepEqual(events.at(-1), ['complete', 'reported by the launch']);
});

test('a fresh process still limited reports deferred with a new receipt', async () => {
  const { host, id, seen } = await launchOnce('deferred');
  assert.equal(seen.error, undefined, JSON.stringify(seen.error));
  assert.equal(seen.result.state, 'deferred');
  assert.equal(seen.result.receipt.ownership.disposition, 'retained');
  const status = await host.status(id);
  assert.deepEqual([status.state, status.reentries], ['deferred', 1]);
});

test('resume refuses an illegal step locally, and a wrong handle or stale attempt changes nothing', async () => {
  const host = hostFor();
  const posts = (log) => log.filter((l) => l.startsWith('POST /v1/deferrals ')).length;
  const recorded = posts(serve.log());
  const { id } = await host.retain(dueReceipt({ scope: SCOPE }));
  await logged((log) => posts(log) > recorded, "the retain's POST");
  // Deferred, nothing launched: the core refuses these before a request is sent.
  const sent = serve.log().length;
  await refused(host.resume(id, { attempt: 1, wakeupHandle: 'f'.repeat(64), outcome: 'complete' }), 0, 'illegal-transition');
  await refused(host.resume(id, { attempt: 1, wakeupHandle: 'f'.repeat(64), outcome: 'deferred' }), 0, 'missing-receipt');
  await refused(host.resume(id, { attempt: 1, wakeupHandle: 'f'.repeat(64), outcome: 'done' }), 0, 'invalid-outcome');
  const other = makeReceipt({ issuedMs: Date.now(), resetMs: Date.now() + 60_000, scope: SCOPE });
  await refused(host.resume(id, { attempt: 1, wakeupHandle: 'f'.repeat(64), outcome: 'deferred', receipt: { ...other, version: 9 } }), 0, 'wrong-type');
  await host.status(id); // a request whose log line follows any stray one
  await logged((log) => log.slice(sent).some((l) => l.startsWith('GET ')), 'the status read');
  assert.deepEqual(serve.log().slice(sent).filter((l) => !l.startsWith('GET ')), [], 'only status reads were sent');

  // While a launch holds the attempt: a wrong handle is refused by the host, a stale attempt
  // by the library after the claim; neither moves the fence.
  const { seen } = await launchOnce('probe');
  assert.equal(seen.error, undefined, JSON.stringify(seen.error));
  assert.deepEqual(seen.probes.wrongHandle, { status: 403, code: 'wrong-handle' });
  assert.deepEqual(seen.probes.staleAttempt, { status: 0, code: 'stale-attempt' });
  assert.deepEqual([seen.probes.after.state, seen.probes.after.fence], [seen.probes.before.state, seen.probes.before.fence]);
  assert.equal(seen.result.state, 'complete');
});

test('a blocked deferral is started again with retry, through the port, with a corrected target', async () => {
  const { host, id, cancellationHandle, seen } = await launchOnce('blocked');
  assert.equal(seen.error, undefined, JSON.stringify(seen.error));
  assert.equal((await host.status(id)).state, 'blocked');
  const before = serve.host(['show', '--json', id]).json;
  await refused(host.retry(id, 'f'.repeat(64)), 403, 'wrong-handle');
  await refused(host.retry(id, cancellationHandle, { launch: 'ftp:nowhere' }), 403, 'launch-not-allowed');
  const resultFile = join(serve.dir, 'result-retried.json');
  const script = join(repoRoot, 'tests/support/resume-via-port.mjs');
  const launch = `exec:'${process.execPath}' '${script}' '${serve.url}' '${serve.tokenFile}' complete '${resultFile}'`;
  const retried = await host.retry(id, cancellationHandle, { launch, maxReentries: 4 });
  assert.equal(retried.retryOf, id);
  assert.notEqual(retried.id, id);
  assert.equal(retried.receipt.ownership.disposition, 'retained');
  assert.deepEqual(retried.receipt.bindings, before.receipts.at(-1).receipt.bindings, 'the same work');
  const status = await host.status(retried.id);
  assert.deepEqual([status.state, status.reentries, status.max_reentries, status.launch, status.retry_of], ['deferred', 0, 4, launch, id]);
  const after = serve.host(['show', '--json', id]).json;
  assert.deepEqual(after.events, before.events, 'the blocked deferral stays as it was');
  assert.equal(after.deferral.retried_by, retried.id);
  await refused(host.retry(id, cancellationHandle), 409, 'already-retried');
  const tick = serve.host(['tick', retried.id]);
  assert.equal(tick.status, 0, tick.stderr);
  assert.equal((await host.status(retried.id)).state, 'complete');
  // serve answers a second cancel (the client host refuses it locally, before any request).
  const other = await host.retain(dueReceipt({ scope: SCOPE }));
  const client = createPortClient({ url: serve.url, token: serve.token });
  await client.cancel(other.id, other.cancellationHandle);
  const again = await client.cancel(other.id, other.cancellationHandle);
  assert.deepEqual([again.state, again.already_cancelled], ['cancelled', true]);
});

test('record takes a receipt as an object or as its text, and both are the same deferral', async () => {
  const client = createPortClient({ url: serve.url, token: serve.token });
  const receipt = dueReceipt({ scope: SCOPE });
  const launch = 'workflow-dispatch:octo/app/sync.yml@main';
  // Its text with other spacing and member order: the host reads the text, digests it as the
  // contract says, and finds the deferral the object recorded.
  const text = `  ${JSON.stringify(Object.fromEntries(Object.entries(receipt).reverse()), null, 2)}\n`;
  const first = await client.record({ receipt: text, launch, maxReentries: 2 });
  assert.match(first.id, /^d[0-9a-f]+$/);
  const again = await client.record({ receipt, launch });
  assert.deepEqual([again.id, again.already_recorded], [first.id, true]);
  const seen = await client.get(first.id);
  assert.equal(seen.max_reentries, 2);
  // Text that is not JSON reaches the host, which names what is wrong with the receipt.
  await refused(client.record({ receipt: '{"schema":1,', launch }), 422, 'malformed-json');
});
