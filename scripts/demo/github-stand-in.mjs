// The demo's loopback stand-in for GitHub: GET /rate_limit, and the label writes of the demo's
// nightly job (POST /repos/{owner}/{repo}/issues/{n}/labels). The REST window has only LEFT
// requests left until it resets a few seconds after start; then it is full again, as GitHub's
// would be, and each label write spends one request. Answers in the documented shapes
// (resources.{core,graphql,...}, x-ratelimit-* headers; 403 with remaining 0 when spent).
// Usage: node scripts/demo/github-stand-in.mjs RESET_IN_SECONDS LEFT
//   prints {"port":N,"reset":EPOCH_S} when listening; GET /_stand-in/stats says what it served.
import http from 'node:http';

const resetInSeconds = Number(process.argv[2] ?? 5);
const leftBeforeReset = Number(process.argv[3] ?? 120);
const LIMIT = 5000;
const startedAt = Math.floor(Date.now() / 1000);
const firstReset = startedAt + resetInSeconds;
let labelWrites = 0;
let spentBeforeReset = 0;
let spentAfterReset = 0;

function core() {
  const now = Math.floor(Date.now() / 1000);
  if (now < firstReset) {
    const remaining = Math.max(0, leftBeforeReset - spentBeforeReset);
    return { limit: LIMIT, used: LIMIT - remaining, remaining, reset: firstReset };
  }
  return { limit: LIMIT, used: spentAfterReset, remaining: LIMIT - spentAfterReset, reset: firstReset + 3600 };
}

function rateHeaders(window) {
  return {
    'content-type': 'application/json; charset=utf-8',
    date: new Date().toUTCString(),
    'x-ratelimit-limit': String(window.limit),
    'x-ratelimit-remaining': String(window.remaining),
    'x-ratelimit-used': String(window.used),
    'x-ratelimit-reset': String(window.reset),
    'x-ratelimit-resource': 'core',
  };
}

function rateLimit(res) {
  const now = Math.floor(Date.now() / 1000);
  const resources = {
    core: core(),
    graphql: { limit: LIMIT, used: 12, remaining: LIMIT - 12, reset: startedAt + 3600 },
    search: { limit: 30, used: 0, remaining: 30, reset: now + 60 },
    integration_manifest: { limit: LIMIT, used: 0, remaining: LIMIT, reset: now + 3600 },
  };
  res.writeHead(200, rateHeaders(resources.core));
  res.end(JSON.stringify({ resources, rate: resources.core }));
}

function addLabels(res, issue) {
  const window = core();
  if (window.remaining === 0) {
    res.writeHead(403, rateHeaders(window));
    res.end(JSON.stringify({ message: 'API rate limit exceeded for user ID 1.', documentation_url: 'https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting' }));
    return;
  }
  if (Math.floor(Date.now() / 1000) < firstReset) spentBeforeReset += 1;
  else spentAfterReset += 1;
  labelWrites += 1;
  res.writeHead(200, rateHeaders(core()));
  res.end(JSON.stringify([{ id: 208045946, name: 'triaged', color: 'f29513', default: false, issue }]));
}

const server = http.createServer((req, res) => {
  const label = /^\/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/labels$/.exec(req.url);
  if (req.method === 'GET' && req.url === '/rate_limit') return rateLimit(res);
  if (req.method === 'GET' && req.url === '/_stand-in/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ labelWrites, spentBeforeReset, spentAfterReset }));
  }
  if (req.method === 'POST' && label) {
    req.resume();
    return req.on('end', () => addLabels(res, Number(label[1])));
  }
  res.writeHead(404, { 'content-type': 'application/json' });
  return res.end(JSON.stringify({ message: 'Not Found' }));
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port, reset: firstReset })}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
});
