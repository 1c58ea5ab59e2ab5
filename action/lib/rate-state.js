// Gets the rate state for one attempt: one `GET /rate_limit` (live) or a saved file (offline).
// The core reads the answer (read_rate_state): the snapshot, what to record in the ledger, the
// clock offset, or a coded failure with its exit class. This file only makes the request.
import { builtin } from './builtin.js';
import { call } from './core.js';
import { request } from './http.js';
import { CommandError, EXIT } from './exit-codes.js';
import { readBounded } from './read-input.js';

const API_VERSION = '2022-11-28';

/** The API base: GITHUB_API_URL (GitHub Enterprise Server sets its own), else github.com. */
export function apiBase(env = process.env) {
  return (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, '');
}

/**
 * What an attempt learned about the rate state:
 *   {source, snapshot: {unlimited, resources} | null, observations: [ledger observations],
 *    clockOffsetMs: number | null, secondary: {retryAfterS} | null}
 */
function fromCore(answer, source) {
  if (!answer.ok) throw new CommandError(answer.exit ?? EXIT.provider, answer.error.code, answer.error.message, answer.error.path);
  return {
    source,
    snapshot: answer.snapshot,
    observations: answer.observations,
    clockOffsetMs: answer.clock_offset_ms,
    secondary: answer.secondary ? { retryAfterS: answer.secondary.retry_after_s } : null,
  };
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
  return fromCore(call('read_rate_state', { source: 'live', ...res, now_ms: nowMs() }), 'live');
}

/** Reads a saved rate state: a `GET /rate_limit` body, or the whole answer (gh api -i). */
export function readRateStateFile(path, nowMs = Date.now()) {
  const text = readBounded(path, 'rate state').toString('utf8');
  return fromCore(call('read_rate_state', { source: 'file', text, now_ms: nowMs }), 'file');
}
