// The library's ports give a deferral's place in its pool: `priority` and `fairnessKey` as
// options of createServePort, of createResumableDeferralHost({url, token}, ...) (and per retain),
// and of the port client's record. Against the real `deferral-host serve` on loopback: the host
// keeps them beside the deferral, never in the receipt; bad values are refused locally
// (PortError, status 0) before anything is sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createPortClient, createResumableDeferralHost, createServePort, createFileKeyStore, PortError,
} from 'deferral';
import { startServe } from '../support/host-serve.mjs';
import { dueReceipt } from '../support/receipts.mjs';

const SCOPE = { repository: 'octo/app', job: 'priority' };
const LAUNCH = 'workflow-dispatch:octo/app/label.yml@main';
let serve;
before(async () => { serve = await startServe(); });
after(async () => { assert.equal(await serve.stop(), 0); });

const records = () => serve.host(['status', '--json']).json.deferrals.length;

async function deferral(id) {
  const res = await fetch(`${serve.url}/v1/deferrals/${id}`, { headers: { authorization: `Bearer ${serve.token}` } });
  assert.equal(res.status, 200);
  return res.json();
}

function assertReceiptClean(receipt) {
  assert.doesNotMatch(JSON.stringify(receipt), /priority|fairness|labeler/);
}

async function refused(promise, code, message) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof PortError, String(err));
    assert.deepEqual([err.status, err.code], [0, code], err.message);
    assert.match(err.message, message);
    return true;
  });
}

test('createServePort({priority, fairnessKey}): schedule records them beside the deferral', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'deferral-keys-')), 'handles');
  const port = createServePort({
    url: serve.url, token: serve.token, launch: LAUNCH, priority: 2, fairnessKey: 'labeler', keyStore: createFileKeyStore(dir),
  });
  const host = createResumableDeferralHost(port);
  const retained = await host.retain(dueReceipt({ scope: SCOPE }));
  assertReceiptClean(retained);
  const [file] = readdirSync(dir);
  const { id } = JSON.parse(readFileSync(join(dir, file), 'utf8'));
  const seen = await deferral(id);
  assert.deepEqual([seen.state, seen.priority, seen.fairness_key], ['deferred', 2, 'labeler']);
  assertReceiptClean(seen.receipt ?? {});
});

test('createResumableDeferralHost({url, token}, {priority, fairnessKey}): retain records them; a retain may give its own', async () => {
  const host = createResumableDeferralHost({ url: serve.url, token: serve.token }, { launch: LAUNCH, priority: 2, fairnessKey: 'labeler' });
  const first = await host.retain(dueReceipt({ scope: SCOPE }));
  assertReceiptClean(first.receipt);
  const seen = await host.status(first.id);
  assert.deepEqual([seen.priority, seen.fairness_key], [2, 'labeler']);
  assert.deepEqual(seen, await deferral(first.id), 'status is GET /v1/deferrals/ID');

  const own = await host.retain(dueReceipt({ scope: SCOPE }), { priority: -1, fairnessKey: 'sync' });
  const ownSeen = await host.status(own.id);
  assert.deepEqual([ownSeen.priority, ownSeen.fairness_key], [-1, 'sync']);

  // Without them: priority 0 and the launch target's key, as before.
  const plain = createResumableDeferralHost({ url: serve.url, token: serve.token }, { launch: LAUNCH });
  const none = await plain.retain(dueReceipt({ scope: SCOPE }));
  const shown = await plain.status(none.id);
  assert.deepEqual([shown.priority, shown.fairness_key], [0, 'octo/app/label.yml']);
});

test('the port client: record({priority, fairnessKey})', async () => {
  const client = createPortClient({ url: serve.url, token: serve.token });
  const answer = await client.record({ receipt: dueReceipt({ scope: SCOPE }), launch: LAUNCH, priority: 7, fairnessKey: 'release' });
  assertReceiptClean(answer.receipt);
  const seen = await client.get(answer.id);
  assert.deepEqual([seen.priority, seen.fairness_key], [7, 'release']);
  // null is not given, as undefined: the defaults.
  const plain = await client.record({ receipt: dueReceipt({ scope: SCOPE }), launch: LAUNCH, priority: null, fairnessKey: null });
  const shown = await client.get(plain.id);
  assert.deepEqual([shown.priority, shown.fairness_key], [0, 'octo/app/label.yml']);
});

test('a priority that is not a whole number, or a key the host would refuse, is refused before anything is sent', async () => {
  const before = records();
  const client = createPortClient({ url: serve.url, token: serve.token });
  const receipt = dueReceipt({ scope: SCOPE });
  const priority = /priority must be a whole number from -9007199254740991 to 9007199254740991/;
  for (const bad of [1.5, '2', 2 ** 53, Number.NaN, Infinity]) {
    await refused(client.record({ receipt, launch: LAUNCH, priority: bad }), 'invalid-priority', priority);
  }
  const key = /a fairness key is 1 to 200 characters without control characters/;
  for (const bad of ['', 'k'.repeat(201), 'a\nb', 42]) {
    await refused(client.record({ receipt, launch: LAUNCH, fairnessKey: bad }), 'invalid-fairness-key', key);
  }
  const host = createResumableDeferralHost({ url: serve.url, token: serve.token }, { launch: LAUNCH });
  await refused(host.retain(receipt, { priority: 0.5 }), 'invalid-priority', priority);
  // Options are checked when the port is made, not at the first deferral.
  assert.throws(() => createServePort({ url: serve.url, token: serve.token, launch: LAUNCH, priority: '1' }),
    (err) => err instanceof PortError && err.code === 'invalid-priority');
  assert.throws(() => createResumableDeferralHost({ url: serve.url, token: serve.token }, { launch: LAUNCH, fairnessKey: 'x\u0000' }),
    (err) => err instanceof PortError && err.code === 'invalid-fairness-key');
  assert.equal(records(), before, 'nothing was recorded');
});
