// The serve-backed durable port (createServePort) under upstream's host API, against the real
// `deferral-host serve`: schedule records once per receipt digest, state and cancel find the
// deferral again, the cancellation handle stays in a 0600 key store, and a fresh process that
// `tick` launches resumes through the same port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createResumableDeferralHost, createServePort, createFileKeyStore, receiptDigest, PortError,
} from 'deferral';
import { startServe } from '../support/host-serve.mjs';
import { dueReceipt } from '../support/receipts.mjs';
import { repoRoot } from './helpers.mjs';

const SCOPE = { repository: 'octo/app', job: 'serve-port' };
const LAUNCH = 'workflow-dispatch:octo/app/sync.yml@main';
let serve;
before(async () => { serve = await startServe(); });
after(async () => { assert.equal(await serve.stop(), 0, 'serve stops cleanly on SIGTERM'); });

const keyDir = () => join(mkdtempSync(join(tmpdir(), 'deferral-keys-')), 'handles');
const portFor = (dir, launch = LAUNCH) => createServePort({ url: serve.url, token: serve.token, launch, keyStore: createFileKeyStore(dir) });
// Deferrals in the store, read from the store itself (serve's log reaches us on a pipe, later
// than its answer, so counting log lines races).
const records = () => serve.host(['status', '--json']).json.deferrals.length;

test('schedule records once per receipt, keeps the handle in a 0600 file, and state follows the host', async () => {
  const dir = keyDir();
  const host = createResumableDeferralHost(portFor(dir));
  const handoff = dueReceipt({ scope: SCOPE });
  const before = records();
  const retained = await host.retain(handoff);
  assert.equal(retained.ownership.disposition, 'retained');
  const again = await host.retain(handoff);
  assert.deepEqual(again, retained, 'the same receipt twice gives the same retained receipt');
  assert.equal(records(), before + 1, 'recorded once');

  const files = readdirSync(dir);
  assert.deepEqual(files, [`${receiptDigest(handoff)}.json`]);
  assert.equal(statSync(join(dir, files[0])).mode & 0o777, 0o600);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  const kept = JSON.parse(readFileSync(join(dir, files[0]), 'utf8'));
  assert.match(kept.cancellationHandle, /^[0-9a-f]{64}$/);
  assert.equal(serve.host(['status', '--json', kept.id]).json.state, 'deferred');

  const port = portFor(dir);
  assert.equal(await port.state(retained), 'deferred');
  // Nothing launched it yet: upstream's resume answers blocked without running anything.
  let runs = 0;
  assert.deepEqual(await host.resume(retained, async () => { runs += 1; return { status: 'complete' }; }), { status: 'blocked' });
  assert.equal(runs, 0);

  await host.cancel(retained);
  assert.equal(await port.state(retained), 'cancelled');
  await host.cancel(retained); // again: already cancelled, nothing changes
  assert.equal(serve.host(['status', '--json', kept.id]).json.state, 'cancelled');
});

test('cancel without the kept handle is refused before anything is sent', async () => {
  const host = createResumableDeferralHost(portFor(keyDir()));
  const retained = await host.retain(dueReceipt({ scope: SCOPE }));
  const elsewhere = portFor(keyDir());
  await assert.rejects(elsewhere.cancel(retained), (err) => {
    assert.ok(err instanceof PortError);
    assert.deepEqual([err.status, err.code], [0, 'no-cancellation-handle']);
    return true;
  });
  await assert.rejects(elsewhere.schedule(retained), { code: 'already-retained' });
  assert.throws(() => createServePort({ url: serve.url, token: serve.token }), { code: 'invalid-launch' });
  assert.throws(() => createServePort({ url: serve.url, token: serve.token, launch: LAUNCH, keyStore: {} }), { code: 'invalid-key-store' });
});

test('a fresh process launched by tick resumes through the port, once', async () => {
  const dir = keyDir();
  const resultFile = join(dir, '..', 'result.json');
  const script = join(repoRoot, 'tests/support/upstream-resume.mjs');
  const launch = `exec:'${process.execPath}' '${script}' '${serve.url}' '${serve.tokenFile}' '${dir}' '${resultFile}'`;
  const host = createResumableDeferralHost(portFor(dir, launch));
  const handoff = dueReceipt({ scope: SCOPE, request: { labels: ['bug'] } });
  const retained = await host.retain(handoff);
  const id = JSON.parse(readFileSync(join(dir, `${receiptDigest(handoff)}.json`), 'utf8')).id;
  const tick = serve.host(['tick', id]);
  assert.equal(tick.status, 0, tick.stderr);
  const seen = JSON.parse(readFileSync(resultFile, 'utf8'));
  assert.equal(seen.error, undefined, JSON.stringify(seen.error));
  assert.deepEqual(seen.result, { status: 'complete' });
  assert.deepEqual(seen.seen, [{ bindings: handoff.bindings, fresh: true }]);
  assert.equal(await portFor(dir).state(retained), 'complete');
});

test('state finds a deferral by receipt digest alone, from a port that did not schedule it', async () => {
  const handoff = dueReceipt({ scope: SCOPE, request: { lookup: true } });
  const retained = await createResumableDeferralHost(portFor(keyDir())).retain(handoff);
  const before = serve.log().filter((l) => l.startsWith('GET /v1/receipts/')).length;
  assert.equal(await portFor(keyDir()).state(retained), 'deferred');
  assert.equal(await portFor(keyDir()).state(handoff), 'deferred', 'the handoff receipt finds it too');
  // serve's log line follows its answer on a pipe: wait for it rather than race it.
  for (let i = 0; i < 50 && serve.log().filter((l) => l.startsWith('GET /v1/receipts/')).length < before + 2; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(serve.log().filter((l) => l.startsWith('GET /v1/receipts/')).length, before + 2, 'found through GET /v1/receipts/{digest}');
  const unknown = { ...retained, bindings: { ...retained.bindings, request_digest: 'f'.repeat(64) } };
  await assert.rejects(portFor(keyDir()).state(unknown), (err) => {
    assert.ok(err instanceof PortError);
    assert.deepEqual([err.status, err.code], [404, 'not-found']);
    return true;
  });
});

test('a receipt scheduled through another port is recorded once, and that port is told so', async () => {
  const handoff = dueReceipt({ scope: SCOPE, request: { once: true } });
  await createResumableDeferralHost(portFor(keyDir())).retain(handoff);
  const before = records();
  const answer = await portFor(keyDir()).schedule(handoff).then(() => null, (err) => err);
  assert.ok(answer instanceof PortError, String(answer));
  assert.equal(answer.code, 'already-recorded');
  assert.match(answer.message, /^deferral d[0-9a-f]+ recorded this receipt before/);
  assert.equal(records(), before, 'answered without a new deferral');
});
