// A loopback stand-in for the GitHub REST API's GET /rate_limit, answering in the shapes GitHub
// documents ("REST API endpoints for rate limits", "Rate limits for the REST API"): the
// resources object, x-ratelimit-* headers, secondary-limit 403s with and without retry-after,
// the Enterprise Server 404 and 401 Bad credentials. It counts every request it receives.
import http from 'node:http';
import https from 'node:https';

export const TEST_TOKEN = 'test-token-not-real';
const DOCS = 'https://docs.github.com/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user';

const bucket = (limit, remaining, reset) => ({ limit, used: limit - remaining, remaining, reset });

/** A documented /rate_limit body. `core` and `graphql` are [remaining, resetInSeconds] pairs. */
export function rateLimitBody({ now = Math.floor(Date.now() / 1000), core = [4990, 3000], graphql = [4990, 3000], limit = 5000 } = {}) {
  const resources = {
    core: bucket(limit, core[0], now + core[1]),
    search: bucket(30, 30, now + 60),
    code_search: bucket(10, 10, now + 60),
    graphql: bucket(limit, graphql[0], now + graphql[1]),
    integration_manifest: bucket(5000, 5000, now + 3600),
    dependency_snapshots: bucket(100, 100, now + 60),
    some_future_bucket: bucket(7, 7, now + 60),
  };
  if (graphql === null) delete resources.graphql;
  return { resources, rate: resources.core };
}

function rateHeaders(core, extra = {}) {
  return {
    'content-type': 'application/json; charset=utf-8',
    date: new Date().toUTCString(),
    'x-github-media-type': 'github.v3; format=json',
    'x-ratelimit-limit': String(core?.limit ?? 60),
    'x-ratelimit-remaining': String(core?.remaining ?? 60),
    'x-ratelimit-reset': String(core?.reset ?? Math.floor(Date.now() / 1000) + 3600),
    'x-ratelimit-used': String(core?.used ?? 0),
    'x-ratelimit-resource': 'core',
    ...extra,
  };
}

/** Canned answers by scenario name. Each returns {status, headers, body}. */
export const SCENARIOS = {
  ready: () => { const b = rateLimitBody(); return { status: 200, headers: rateHeaders(b.resources.core), body: b }; },
  'rest-low': () => { const b = rateLimitBody({ core: [120, 1800] }); return { status: 200, headers: rateHeaders(b.resources.core), body: b }; },
  'graphql-low': () => { const b = rateLimitBody({ graphql: [10, 2400] }); return { status: 200, headers: rateHeaders(b.resources.core), body: b }; },
  'both-low': () => { const b = rateLimitBody({ core: [100, 600], graphql: [10, 2400] }); return { status: 200, headers: rateHeaders(b.resources.core), body: b }; },
  'github-token': () => { const b = rateLimitBody({ core: [950, 3000], graphql: [990, 3000], limit: 1000 }); return { status: 200, headers: rateHeaders(b.resources.core), body: b }; },
  'no-graphql': () => { const b = rateLimitBody({ graphql: null }); return { status: 200, headers: rateHeaders(b.resources.core), body: b }; },
  'secondary-retry-after': () => ({
    status: 403,
    headers: rateHeaders(null, { 'retry-after': '120', 'x-ratelimit-remaining': '4000', 'x-ratelimit-limit': '5000' }),
    body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000:00000000.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits', status: '403' },
  }),
  'secondary-no-retry-after': () => ({
    status: 429,
    headers: rateHeaders(null, { 'x-ratelimit-remaining': '4000', 'x-ratelimit-limit': '5000' }),
    body: { message: 'You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits', status: '429' },
  }),
  'ghes-404': () => ({
    status: 404,
    headers: { 'content-type': 'application/json; charset=utf-8', date: new Date().toUTCString() },
    body: { message: 'Rate limiting is not enabled.', documentation_url: 'https://docs.github.com/enterprise-server@3.14/rest/rate-limit/rate-limit#get-rate-limit-status-for-the-authenticated-user', status: '404' },
  }),
  unauthorized: () => ({
    status: 401,
    headers: { 'content-type': 'application/json; charset=utf-8', date: new Date().toUTCString() },
    body: { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' },
  }),
  forbidden: () => ({
    status: 403,
    headers: rateHeaders(null, { 'x-ratelimit-remaining': '4999', 'x-ratelimit-limit': '5000' }),
    body: { message: 'Resource not accessible by integration', documentation_url: DOCS, status: '403' },
  }),
  'server-error': () => ({ status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad Gateway</html>' }),
};

function handler(state) {
  return (req, res) => {
    state.requests.push({ method: req.method, url: req.url, authorization: req.headers.authorization, userAgent: req.headers['user-agent'] });
    const answer = req.method === 'GET' && /^\/(api\/v3\/)?rate_limit$/.test(req.url.split('?')[0])
      // GitHub accepts both schemes; octokit sends `token`, Deferral sends `Bearer`.
      ? ([`Bearer ${state.token}`, `token ${state.token}`].includes(req.headers.authorization) || state.scenario === 'ghes-404' ? state.answer() : SCENARIOS.unauthorized())
      : { status: 404, headers: { 'content-type': 'application/json' }, body: { message: 'Not Found', documentation_url: DOCS, status: '404' } };
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    res.writeHead(answer.status, answer.headers);
    res.end(body);
  };
}

/**
 * Starts the fake API on 127.0.0.1. `scenario` names one of SCENARIOS or is a function giving
 * {status, headers, body}. With `tls: {key, cert}` it serves HTTPS. Resolves with
 * {url, requests, setScenario(name), close()}.
 */
export async function startFakeGitHub({ scenario = 'ready', token = TEST_TOKEN, tls } = {}) {
  const state = { requests: [], token, scenario: null, answer: null };
  const setScenario = (s) => {
    state.scenario = typeof s === 'string' ? s : 'custom';
    state.answer = typeof s === 'function' ? s : SCENARIOS[s];
    if (!state.answer) throw new Error(`unknown scenario ${s}`);
  };
  setScenario(scenario);
  const server = tls ? https.createServer(tls, handler(state)) : http.createServer(handler(state));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `${tls ? 'https://localhost' : 'http://127.0.0.1'}:${port}`,
    port,
    requests: state.requests,
    setScenario,
    close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }),
  };
}
