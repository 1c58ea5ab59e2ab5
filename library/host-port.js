// A client for `deferral-host serve`, the durable port: one HTTP request per call through
// the shell's http.js (node:http/https, no fetch), never retried. Whether to try again is the
// caller's call: a repeated `record` would make a second deferral.
import { request } from '../shared/http.js';
import { ask, PortError } from './ask.js';

export { PortError };

/**
 * A value as the core checks it: its JS type and its text (`NaN` stays `NaN`, not JSON's null);
 * undefined and null are not given.
 */
const typed = (value) => (value === undefined || value === null ? null : { kind: typeof value, text: String(value) });

/**
 * A deferral's place in its pool (`priority`, `fairnessKey`) as the record body's members,
 * checked by the core with the host's rules: `{}` at the defaults, so the body is what it was
 * without them.
 */
export const orderFields = ({ priority, fairnessKey } = {}) => ask('record_order', { priority: typed(priority), fairness_key: typed(fairnessKey) }).place;

/**
 * A receipt as a body member: an object as itself; a string as a JSON string holding it, which
 * the host reads as that text, so what it stores is byte for byte what was given.
 */
const receiptMember = (receipt) => (typeof receipt === 'string' ? receipt.trim() : receipt);

/**
 * createPortClient({url, token, timeoutMs?, env?}) answers {record, get, getByReceipt, cancel,
 * retry, claim, outcome, admit, release}.
 * Each resolves with the port's JSON answer on 2xx and rejects with a PortError otherwise.
 */
export function createPortClient({ url, token, timeoutMs, env = process.env } = {}) {
  const { timeout_ms: wait, max_bytes: maxBytes } = ask('port_client', { url: url ?? null, token: Boolean(token), timeout_ms: timeoutMs ?? null });
  const base = new URL(url);
  const root = base.href.replace(/\/+$/, '');

  async function call(method, path, body) {
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    let answer;
    try {
      answer = await request(`${root}${path}`, { method, headers, body, timeoutMs: wait, maxBytes, env });
    } catch (err) {
      // The URL is the operator's, not a secret; the token never reaches a message.
      ask('port_failure', { status: 0, origin: base.origin, why: err.message, code: err.code ?? null });
    }
    let json = null;
    try { json = JSON.parse(answer.body); } catch { /* not JSON: reported below */ }
    if (answer.status >= 200 && answer.status < 300 && json && typeof json === 'object') return json;
    const error = json?.error;
    if (error?.code) throw new PortError(answer.status, error.code, error.message ?? error.code, error.path);
    return ask('port_failure', { status: answer.status });
  }

  const at = (id, action = '') => `/v1/deferrals/${encodeURIComponent(id)}${action}`;
  return {
    url: base.origin,
    /** Records a receipt; `priority` and `fairnessKey` are kept by the host beside it, not in it. */
    record: async ({ receipt, launch, maxReentries, priority, fairnessKey }) => {
      const place = orderFields({ priority, fairnessKey });
      const body = { receipt: receiptMember(receipt), launch, max_reentries: maxReentries, priority: place.priority, fairness_key: place.fairness_key };
      return call('POST', '/v1/deferrals', JSON.stringify(body));
    },
    get: (id) => call('GET', at(id)),
    /** The deferral recorded from a receipt, by the receipt's digest (as `get` answers it). */
    getByReceipt: (digest) => call('GET', `/v1/receipts/${encodeURIComponent(digest)}`),
    cancel: (id, handle) => call('POST', at(id, '/cancel'), JSON.stringify({ handle })),
    /** A blocked deferral started again as a new one (`deferral-host retry`); launch and maxReentries optional. */
    retry: (id, { handle, launch, maxReentries }) => call('POST', at(id, '/retry'), JSON.stringify({ handle, launch, max_reentries: maxReentries })),
    claim: (id, wakeupHandle) => call('POST', at(id, '/claim'), JSON.stringify({ wakeup_handle: wakeupHandle })),
    outcome: (id, { attempt, outcome, handle, receipt }) => {
      return call('POST', at(id, '/outcome'), JSON.stringify({ attempt, outcome, handle, receipt: receipt === undefined ? undefined : receiptMember(receipt) }));
    },
    /** Asks a pool to admit a plan's cost (POST /v1/admissions); the core checks and writes the body. */
    admit: ({ pool, cost, rate } = {}) => call('POST', '/v1/admissions', ask('pool_admit', { pool: pool ?? null, cost: cost ?? null, rate: rate ?? null }).body),
    /** Gives an admission back (POST /v1/admissions/ID/release), with the rate state seen last if given. */
    release: (admission, rate) => {
      const { body } = ask('pool_release', { admission: admission ?? null, rate: rate ?? null });
      return call('POST', `/v1/admissions/${encodeURIComponent(admission)}/release`, body);
    },
  };
}
