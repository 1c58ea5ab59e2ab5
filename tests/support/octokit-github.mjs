// A stateful loopback stand-in for the parts of GitHub the Octokit plugin meets, in the shapes
// GitHub documents: GET /rate_limit (free), REST calls that spend the `core` bucket and carry
// x-ratelimit-* headers, the primary-limit 403 (remaining 0), secondary-limit 403/429 with and
// without retry-after, POST /graphql spending points, answering RATE_LIMITED when empty, and
// GET /search/* spending the `search` bucket (30 a minute), answering 403 when empty.
// Every request it receives is logged, so a test can prove what was never sent.
import http from 'node:http';

const bucket = (limit, remaining, reset) => ({ limit, used: limit - remaining, remaining, reset });

/**
 * startGitHub({limit, core, graphql, resetInS}) answers {url, requests, state, stop()}. `state`
 * can be changed by the test: core/graphql/search remaining, `secondary` (a queue of canned
 * secondary answers for the next REST calls), `graphqlError` (type for the next GraphQL call),
 * `canned` (a queue of whole answers {status, headers, body} for the next requests of any path,
 * headers given exactly: a test leaves out what a proxy or an old server leaves out), `delayMs`
 * (how long each answer waits, so requests overlap).
 */
export async function startGitHub({ limit = 5000, core = limit - 10, graphql = limit - 10, resetInS = 3000 } = {}) {
  const requests = [];
  const state = { limit, core, graphql, search: 30, reset: Math.floor(Date.now() / 1000) + resetInS, secondary: [], graphqlError: null, rateLimitAnswer: null, canned: [], delayMs: 0 };
  const headers = (resource, remaining, extra = {}) => ({
    'content-type': 'application/json; charset=utf-8',
    date: new Date().toUTCString(),
    'x-ratelimit-limit': String(state.limit),
    'x-ratelimit-remaining': String(remaining),
    'x-ratelimit-used': String(state.limit - remaining),
    'x-ratelimit-reset': String(state.reset),
    'x-ratelimit-resource': resource,
    ...extra,
  });
  const send = (res, status, head, body) => { res.writeHead(status, head); res.end(JSON.stringify(body)); };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => { raw += chunk; });
    req.on('end', () => setTimeout(() => {
      const path = new URL(req.url, 'http://x').pathname;
      requests.push({ method: req.method, path, at: Date.now(), body: raw });
      if (req.method === 'GET' && path === '/rate_limit') {
        if (state.rateLimitAnswer) return send(res, state.rateLimitAnswer.status, { 'content-type': 'application/json; charset=utf-8' }, state.rateLimitAnswer.body);
        const resources = { core: bucket(state.limit, state.core, state.reset), graphql: bucket(state.limit, state.graphql, state.reset), search: bucket(30, state.search, state.reset) };
        return send(res, 200, headers('core', state.core), { resources, rate: resources.core });
      }
      const canned = state.canned.shift();
      if (canned) return send(res, canned.status, { 'content-type': 'application/json; charset=utf-8', ...canned.headers }, canned.body);
      if (path.startsWith('/search/')) {
        const resource = path.startsWith('/search/code') ? 'code_search' : 'search';
        const head = { ...headers(resource, Math.max(state.search - 1, 0)), 'x-ratelimit-limit': '30', 'x-ratelimit-used': String(30 - Math.max(state.search - 1, 0)) };
        if (state.search <= 0) {
          return send(res, 403, { ...head, 'x-ratelimit-remaining': '0', 'x-ratelimit-used': '30' }, {
            message: 'API rate limit exceeded for user ID 1.',
            documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit',
            status: '403',
          });
        }
        state.search -= 1;
        return send(res, 200, head, { total_count: 0, incomplete_results: false, items: [] });
      }
      if (req.method === 'POST' && path === '/graphql') {
        if (state.graphqlError || state.graphql <= 0) {
          const type = state.graphqlError ?? 'RATE_LIMITED';
          state.graphqlError = null;
          const error = type === 'RATE_LIMIT'
            ? { type, code: 'graphql_rate_limit', message: 'API rate limit already exceeded for user ID 1.' }
            : { type, message: 'API rate limit exceeded for user ID 1.' };
          return send(res, 200, headers('graphql', 0), { errors: [error] });
        }
        state.graphql -= 1;
        return send(res, 200, headers('graphql', state.graphql), { data: { viewer: { login: 'octocat' } } });
      }
      if (path === '/missing') {
        state.core -= 1;
        return send(res, 404, headers('core', state.core), { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
      }
      const secondary = state.secondary.shift();
      if (secondary) {
        const extra = secondary.retryAfter === undefined ? {} : { 'retry-after': String(secondary.retryAfter) };
        return send(res, secondary.status ?? 403, headers('core', state.core, extra), {
          message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits',
          status: String(secondary.status ?? 403),
        });
      }
      if (state.core <= 0) {
        return send(res, 403, headers('core', 0), {
          message: 'API rate limit exceeded for user ID 1.',
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-the-primary-rate-limit',
          status: '403',
        });
      }
      state.core -= 1;
      return send(res, req.method === 'POST' ? 201 : 200, headers('core', state.core), { id: requests.length, path });
    }, state.delayMs));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    state,
    sent: (path) => requests.filter((r) => r.path === path).length,
    /** The headers GitHub sends with `resource` at `remaining`, for canned answers to trim. */
    headers,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}
