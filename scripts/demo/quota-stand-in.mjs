// The third act's loopback stand-in for GitHub: one REST quota that many jobs share. The first
// window is spent and resets FIRST_S seconds after start; every later window lasts WINDOW_S
// seconds and starts full with LIMIT requests. GET /rate_limit is free, as on GitHub; each label
// write spends one request, and a write into a spent window gets GitHub's 403 (remaining 0),
// counted as a job refused half-way. Shapes as documented (resources.core, x-ratelimit-*).
// Usage: node scripts/demo/quota-stand-in.mjs LIMIT FIRST_S WINDOW_S
//   prints {"port":N,"firstReset":EPOCH_S,"window":WINDOW_S} when listening;
//   GET /_stand-in/stats says what each window served.
import http from 'node:http';

const [limit, firstS, windowS] = process.argv.slice(2, 5).map(Number);
const firstReset = Math.ceil(Date.now() / 1000) + firstS;
// spent[k]: requests spent in window k (0: the spent one before firstReset).
const spent = new Map([[0, limit]]);
let refused = 0;

function windowAt(nowS) {
  if (nowS < firstReset) return { k: 0, reset: firstReset };
  const k = 1 + Math.floor((nowS - firstReset) / windowS);
  return { k, reset: firstReset + k * windowS };
}

function core() {
  const { k, reset } = windowAt(Date.now() / 1000);
  const used = spent.get(k) ?? 0;
  return { k, limit, used, remaining: Math.max(0, limit - used), reset };
}

function headers(w) {
  return {
    'content-type': 'application/json; charset=utf-8',
    date: new Date().toUTCString(),
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(w.remaining),
    'x-ratelimit-used': String(w.used),
    'x-ratelimit-reset': String(w.reset),
    'x-ratelimit-resource': 'core',
  };
}

function send(res, status, head, body) {
  res.writeHead(status, head);
  res.end(JSON.stringify(body));
}

const server = http.createServer((req, res) => {
  const w = core();
  const shown = { limit: w.limit, used: w.used, remaining: w.remaining, reset: w.reset };
  if (req.method === 'GET' && req.url === '/rate_limit') {
    const hour = Math.floor(Date.now() / 1000) + 3600;
    const resources = { core: shown, graphql: { limit: 5000, used: 0, remaining: 5000, reset: hour }, search: { limit: 30, used: 0, remaining: 30, reset: hour } };
    return send(res, 200, headers(w), { resources, rate: shown });
  }
  if (req.method === 'GET' && req.url === '/_stand-in/stats') {
    const windows = [...spent.entries()].filter(([k]) => k > 0).map(([k, n]) => ({ window: k, spent: n }));
    return send(res, 200, { 'content-type': 'application/json' }, { windows, refused, current: w.k, limit });
  }
  if (req.method === 'POST' && /^\/repos\/[^/]+\/[^/]+\/issues\/\d+\/labels$/.test(req.url)) {
    req.resume();
    return req.on('end', () => {
      const now = core();
      if (now.remaining === 0) {
        refused += 1;
        return send(res, 403, headers(now), { message: 'API rate limit exceeded for installation ID 42.', documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting' });
      }
      spent.set(now.k, now.used + 1);
      return send(res, 200, headers(core()), [{ id: 208045946, name: 'synced', color: 'f29513', default: false }]);
    });
  }
  return send(res, 404, { 'content-type': 'application/json' }, { message: 'Not Found' });
});

// Longer than any pause between the demo's calls: a kept-alive socket is never closed under it.
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ port: server.address().port, firstReset, window: windowS }));
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
});
