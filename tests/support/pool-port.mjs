// A loopback stand-in for the pool side of `deferral-host serve`, speaking the wire protocol of
// one admission across runners (docs/action.md, "Pools"): POST /v1/admissions admits a plan's
// cost while it fits above the reserve in what the pool has left this window (the first rate
// state a gate reported, less what is admitted), else answers the pool's window; POST
// /v1/admissions/{id}/release gives an admission back; POST /v1/deferrals retains a receipt
// (fresh random handles, only their SHA-256 in the receipt) and keeps the body it was sent.
// It checks the bearer token and counts every request. Loopback only, in memory.
import { createServer } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const RESOURCES = ['rest', 'graphql'];

/**
 * Starts the stand-in. `token` is the bearer token it accepts; `answer(body)` may replace the
 * answer to an admission request ({status, body}). Resolves with {url, token, requests,
 * admissions, deferrals, close()}: `requests` are {method, path, authorization, body}.
 */
export async function startPoolPort({ token = 'test-port-token-not-real', answer } = {}) {
  const requests = [];
  const pools = new Map(); // name -> {window: {rest, graphql}, admitted: Map(id -> cost)}
  const admissions = new Map(); // id -> {pool, cost, released}
  const deferrals = [];
  let next = 17;

  function admit({ pool, cost, rate }) {
    let p = pools.get(pool);
    if (!p) {
      p = { window: {}, admitted: new Map() };
      for (const r of RESOURCES) if (rate[r]) p.window[r] = { ...rate[r] };
      pools.set(pool, p);
    }
    const left = (r) => p.window[r].remaining - [...p.admitted.values()].reduce((n, c) => n + (c[r] ?? 0), 0);
    const window = Object.fromEntries(RESOURCES.filter((r) => p.window[r]).map((r) => [r, { ...p.window[r], remaining: Math.max(0, left(r)) }]));
    const short = RESOURCES.find((r) => p.window[r] && left(r) - (cost[r] ?? 0) < p.window[r].reserve);
    if (short) {
      return { status: 200, body: { admitted: false, pool, reason: `pool ${pool}: ${cost[short]} more ${short} would leave ${left(short) - cost[short]}, below the reserve of ${p.window[short].reserve}`, window } };
    }
    const id = String(next++);
    p.admitted.set(id, cost);
    admissions.set(id, { pool, cost, released: false });
    const expires = Math.max(...RESOURCES.filter((r) => p.window[r]).map((r) => p.window[r].reset_ms));
    return { status: 201, body: { admitted: true, admission: id, pool, expires_ms: expires, window } };
  }

  function release(id) {
    const a = admissions.get(id);
    if (!a) return { status: 404, body: { error: { code: 'not-found', message: `no admission ${id}` } } };
    if (a.released) return { status: 200, body: { released: false, already: true } };
    a.released = true;
    pools.get(a.pool).admitted.delete(id);
    return { status: 200, body: { released: true } };
  }

  function retain(body) {
    const wakeup = randomBytes(32).toString('hex');
    const cancel = randomBytes(32).toString('hex');
    const id = `d${randomBytes(12).toString('hex')}`;
    deferrals.push({ id, body });
    const receipt = { ...body.receipt, ownership: { disposition: 'retained', mode: 'durable-host', wakeup_digest: sha256(wakeup), cancellation_digest: sha256(cancel) } };
    return { status: 201, body: { id, receipt, cancellation_handle: cancel } };
  }

  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => { text += d; });
    req.on('end', () => {
      const path = req.url.split('?')[0];
      let body = null;
      try { body = text ? JSON.parse(text) : null; } catch { /* refused below */ }
      requests.push({ method: req.method, path, authorization: req.headers.authorization, body });
      let reply;
      if (req.headers.authorization !== `Bearer ${token}`) reply = { status: 401, body: { error: { code: 'unauthorized', message: 'missing or wrong bearer token' } } };
      else if (req.method !== 'POST' || (text && body === null)) reply = { status: 400, body: { error: { code: 'bad-request', message: 'not a JSON POST' } } };
      else if (path === '/v1/admissions') reply = answer?.(body) ?? admit(body);
      else if (/^\/v1\/admissions\/[^/]+\/release$/.test(path)) reply = release(decodeURIComponent(path.split('/')[3]));
      else if (path === '/v1/deferrals') reply = retain(body);
      else reply = { status: 404, body: { error: { code: 'not-found', message: 'no such endpoint' } } };
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    token,
    requests,
    admissions,
    deferrals,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}
