// One admission across runners, end to end: 12 gates (`node dist/cli.js gate`, started
// together as 12 runners would be) over one pool of the real `deferral-host serve` (SQLite),
// against one loopback GitHub that tells each of them the same: 1,200 of 5,000 left, a reserve
// of 500, so 700 of room and 7 plans of 100 writes fit. Never more than fits is admitted, at
// least 80% of what fits is, every other gate defers with its receipt retained in the pool, and
// GitHub gets exactly one request per gate.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServe } from '../support/host-serve.mjs';
import { concurrentGates, startQuota, tally, writes } from '../support/concurrent-gates.mjs';

const LAUNCH = 'exec:/bin/true';
let serve;
let github;
before(async () => {
  serve = await startServe({ allowLaunch: ['exec:'] });
  github = await startQuota({ remaining: 1200 });
});
after(async () => {
  await github.close();
  assert.equal(await serve.stop(), 0);
});

test('12 concurrent gates over one pool admit what fits (at least 80% of it, never more) and defer the rest', async () => {
  const fits = Math.floor((1200 - 500) / 100);
  const { runs } = await concurrentGates({ n: 12, github: github.url, port: serve.url, token: serve.token, launch: LAUNCH, plan: writes(100), pool: 'app-42' });
  const { admitted, deferred, other } = tally(runs);
  assert.equal(other, 0, runs.filter((r) => ![0, 6].includes(r.status)).map((r) => JSON.stringify(r.json) + r.stderr).join('\n'));
  assert.ok(admitted <= fits, `${admitted} admitted, ${fits} fit`);
  assert.ok(admitted >= Math.ceil(0.8 * fits), `only ${admitted} of the ${fits} that fit were admitted`);
  assert.equal(admitted + deferred, 12);
  assert.equal(github.requests.length, 12, 'one GitHub request per gate');

  const ids = new Set(runs.filter((r) => r.status === 0).map((r) => r.json.admission));
  assert.equal(ids.size, admitted, 'each admission its own');
  for (const r of runs.filter((x) => x.status === 6)) {
    assert.equal(r.json.pool, 'app-42');
    assert.equal(r.json.deferredReceipt.ownership.disposition, 'retained');
    assert.equal(r.json.reason, 'rest-reserve');
    const status = serve.host(['status', '--json', r.json.deferralId]).json;
    assert.equal(status?.state, 'deferred', JSON.stringify(status));
  }
});
