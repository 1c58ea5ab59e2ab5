// createServePort against a hostile port on loopback: its answers are checked as the Action
// checks a coordinator's (the core's one check, through wasm), so a deferral id, handle, receipt
// or state it makes up is refused with `invalid-port-answer` before anything is kept or sent
// with it (an id of `..` would otherwise turn a later state() into `GET /v1/`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createServePort, PortError } from 'deferral';
import { dueReceipt } from '../support/receipts.mjs';

const SCOPE = { repository: 'octo/app', job: 'serve-port-answers' };
const LAUNCH = 'workflow-dispatch:octo/app/sync.yml@main';
const HANDLE = 'c'.repeat(64);

/** A port answering `answers(req, body)`; every request it receives is logged. */
async function hostilePort(answers) {
  const requests = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      const [status, answer] = answers(req, body);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, requests, stop: () => new Promise((r) => server.close(r)) };
}

const retainedOf = (receipt) => ({ ...receipt, ownership: { disposition: 'retained', mode: 'durable-host', wakeup_digest: 'a'.repeat(64), cancellation_digest: 'b'.repeat(64) } });

/** A key store in memory that records what was kept. */
function memoryStore(seed = {}) {
  const kept = { ...seed };
  return { kept, get: async (k) => kept[k], set: async (k, v) => { kept[k] = v; } };
}

async function refused(promise) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof PortError, `${err?.name}: ${err?.message}`);
    assert.equal(err.code, 'invalid-port-answer', err.message);
    return true;
  });
}

test('a record answer with a made-up id or handle is refused and nothing is kept', async () => {
  for (const [id, handle] of [['..', HANDLE], ['../../v1', HANDLE], ['x'.repeat(65), HANDLE], ['', HANDLE], ['dok', '../not-a-handle'], ['dok', 'C'.repeat(64)]]) {
    const port = await hostilePort((req, body) => [201, { id, receipt: retainedOf(JSON.parse(body).receipt), cancellation_handle: handle }]);
    const store = memoryStore();
    try {
      const serve = createServePort({ url: port.url, token: 'test-token-not-real', launch: LAUNCH, keyStore: store });
      await refused(serve.schedule(dueReceipt({ scope: SCOPE })));
      assert.deepEqual(store.kept, {}, `nothing kept for id ${JSON.stringify(id)}`);
      assert.deepEqual(port.requests, ['POST /v1/deferrals']);
    } finally { await port.stop(); }
  }
});

test('a deferral found with a made-up id or state is refused before it is used', async () => {
  const receipt = dueReceipt({ scope: SCOPE });
  const port = await hostilePort((req) => {
    if (req.url.startsWith('/v1/receipts/')) return [200, { id: '..', state: 'deferred' }];
    return [200, { id: 'dok', state: 'owned-by-me' }];
  });
  try {
    const serve = createServePort({ url: port.url, token: 'test-token-not-real', launch: LAUNCH, keyStore: memoryStore() });
    await refused(serve.state(receipt));
    // cancel with a kept handle but no kept id: the id the port names is checked before POST.
    const { receiptDigest } = await import('deferral');
    const digest = receiptDigest(receipt);
    const store = memoryStore({ [digest]: { cancellationHandle: HANDLE } });
    const other = createServePort({ url: port.url, token: 'test-token-not-real', launch: LAUNCH, keyStore: store });
    await refused(other.cancel(receipt));
    const kept = memoryStore({ [digest]: { id: 'dok', cancellationHandle: HANDLE } });
    await refused(createServePort({ url: port.url, token: 'test-token-not-real', launch: LAUNCH, keyStore: kept }).state(receipt));
    assert.ok(port.requests.every((r) => !r.includes('..') && r !== 'GET /v1/' && !r.endsWith('/cancel')), port.requests.join(', '));
  } finally { await port.stop(); }
});
