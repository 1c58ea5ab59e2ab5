// Gets the rate state for one attempt: one `GET /rate_limit` (live) or a saved body (offline),
// and turns the HTTP outcome into what the decision needs or into a coded failure. Credential
// problems are exit 3 and transport or provider failures exit 4: never guessed into a deferral.
import { builtin } from './builtin.js';
import { call } from './core.js';
import { request } from './http.js';
import { CommandError, EXIT } from './exit-codes.js';

const { readFileSync } = builtin('node:fs');
const API_VERSION = '2022-11-28';

/** The API base: GITHUB_API_URL (GitHub Enterprise Server sets its own), else github.com. */
export function apiBase(env = process.env) {
  return (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
}

/**
 * What an attempt learned about the rate state:
 *   {source, snapshot: {unlimited, resources} | null, observations: [ledger observations],
 *    clockOffsetMs: number | null, secondary: {retryAfterS} | null}
 * `snapshot` is null only when /rate_limit itself answered with a secondary limit.
 */
function fromResponse(res, nowMs) {
  const classified = call('classify_response', res);
  if (!classified.ok) throw new CommandError(EXIT.provider, 'unreadable-response', classified.error.message);
  const headers = classified.headers;
  const clockOffsetMs = headers.date_ms == null ? null : headers.date_ms - nowMs;
  const observations = clockOffsetMs == null ? [] : [{ kind: 'clock', offset_ms: clockOffsetMs, observed_at_ms: nowMs }];
  const state = { source: 'live', snapshot: null, observations, clockOffsetMs, secondary: null, httpStatus: res.status };

  if (res.status === 200 || classified.kind === 'unlimited') {
    const parsed = call('parse_rate_limit', { status: res.status, body: res.body });
    if (!parsed.ok) {
      throw new CommandError(EXIT.provider, 'unreadable-rate-state', `GET /rate_limit answered ${res.status} with a body Deferral cannot read: ${parsed.error.message}`);
    }
    state.snapshot = parsed.snapshot;
    for (const [resource, window] of Object.entries(parsed.snapshot.resources)) {
      observations.push({ kind: 'window', resource, window, observed_at_ms: nowMs });
    }
    return state;
  }
  switch (classified.kind) {
    case 'secondary':
      state.secondary = { retryAfterS: headers.retry_after_s ?? null };
      observations.push({ kind: 'strike', at_ms: nowMs, retry_after_s: headers.retry_after_s ?? null });
      return state;
    case 'primary-rest':
    case 'primary-graphql': {
      // /rate_limit does not count against the primary limit, but if a proxy or server answers
      // as if it did, its headers still describe the exhausted window: defer until its reset.
      const resource = classified.kind === 'primary-graphql' ? 'graphql' : (headers.resource ?? 'core');
      if (headers.limit != null && headers.remaining != null && headers.reset != null) {
        const window = { limit: headers.limit, remaining: headers.remaining, used: headers.used ?? null, reset: headers.reset };
        state.snapshot = { unlimited: false, resources: { [resource]: window } };
        observations.push({ kind: 'window', resource, window, observed_at_ms: nowMs });
        return state;
      }
      throw new CommandError(EXIT.provider, 'rate-limited-without-reset', `GET /rate_limit answered ${res.status} (rate limited) without the x-ratelimit headers needed to know when to resume`);
    }
    default:
      break;
  }
  if (res.status === 401) {
    throw new CommandError(EXIT.auth, 'bad-credentials', 'GitHub refused the token (401): it is missing, expired or revoked; check the token input (or GITHUB_TOKEN/GH_TOKEN)');
  }
  if (res.status === 403) {
    throw new CommandError(EXIT.auth, 'forbidden', 'GitHub refused access (403, not a rate limit): the token lacks permission or is blocked by an IP allow list or SSO enforcement');
  }
  if (res.status === 404) {
    throw new CommandError(EXIT.provider, 'not-found', 'GET /rate_limit answered 404: check GITHUB_API_URL (GitHub Enterprise Server uses https://HOST/api/v3)');
  }
  throw new CommandError(EXIT.provider, 'provider-error', `GET /rate_limit answered HTTP ${res.status}; no decision was made`);
}

/** Fetches the live rate state: exactly one request, no retry. */
export async function fetchRateState({ token, env = process.env, nowMs = () => Date.now(), timeoutMs }) {
  const headers = {
    accept: 'application/vnd.github+json',
    'user-agent': 'deferral',
    'x-github-api-version': API_VERSION,
  };
  if (token) headers.authorization = `Bearer ${token}`;
  let res;
  try {
    res = await request(`${apiBase(env)}/rate_limit`, { headers, env, timeoutMs });
  } catch (err) {
    throw new CommandError(EXIT.provider, 'transport-error', `cannot reach the GitHub API: ${err.message}`);
  }
  return fromResponse(res, nowMs());
}

/** Reads a saved `GET /rate_limit` body (offline mode). */
export function readRateStateFile(path, nowMs = Date.now()) {
  let body;
  try {
    body = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (err) {
    throw new CommandError(EXIT.invalid, 'unreadable-file', `cannot read the rate state ${path === '-' ? 'from standard input' : 'file'}: ${err.code ?? err.message}`);
  }
  // A saved Enterprise Server answer ("Rate limiting is not enabled.") reads as unlimited.
  const status = /rate limiting is not enabled/i.test(body) && !/"resources"/.test(body) ? 404 : 200;
  const parsed = call('parse_rate_limit', { status, body });
  if (!parsed.ok) {
    throw new CommandError(EXIT.invalid, 'invalid-rate-state', `the rate state file is not a GET /rate_limit body: ${parsed.error.message}`, parsed.error.path);
  }
  const observations = Object.entries(parsed.snapshot.resources)
    .map(([resource, window]) => ({ kind: 'window', resource, window, observed_at_ms: nowMs }));
  return { source: 'file', snapshot: parsed.snapshot, observations, clockOffsetMs: null, secondary: null };
}
