// One Octokit instance's gate: the rate state it has seen (one GET /rate_limit, then every
// answer's headers, in a deferral-ledger-v1 document kept in memory), what its requests in
// flight will spend, and the core's decision before each request. Every rule (options and
// their defaults, reserves, costs, a request's bucket and plan, classifying answers, resume
// times, receipts) is the wasm core's; this file only carries state between calls.
import { call } from '../../shared/wasm.js';
import { builtin } from '../../shared/builtin.js';
import { ask } from '../ask.js';
import { parseDeferredReceiptV1 } from '../receipt-api.js';
import { DeferralBlockedError, DeferredError } from './errors.js';

const { appendFileSync } = builtin('node:fs');

const bodyText = (data) => (data === undefined || data === null ? '' : typeof data === 'string' ? data : JSON.stringify(data));

// Node's fetch Headers or a plain object: the core takes {name: value}.
function headerObject(headers) {
  if (!headers) return {};
  if (typeof headers.entries === 'function' && typeof headers.get === 'function') return Object.fromEntries(headers.entries());
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => typeof v === 'string' || typeof v === 'number'));
}

/** What the core needs of Octokit's request options to know the request (never its auth). */
export function requestOf(options) {
  const { method, url, query, variables, operationName, data } = options;
  const text = (v) => (typeof v === 'string' ? v : undefined);
  const plain = (v) => (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype ? v : undefined);
  return ask('octokit_request', {
    options: { method: text(method), url: text(url), query: text(query), variables: plain(variables), operationName: text(operationName), data: text(data) ?? plain(data) },
  });
}

export function createGate(options = {}, env = process.env) {
  const { port, ...rest } = options;
  const now = options.now ?? Date.now;
  // Only the variables the default scope reads go to the core (never a token in env).
  const runner = Object.fromEntries(ask('octokit_env').names.map((name) => [name, env[name] ?? null]));
  const portState = port === undefined || port === null ? 'none'
    : typeof port.admit === 'function' && typeof port.release === 'function' ? 'usable' : 'unusable';
  // The work's bindings, whatever one request is being admitted; bad options throw here.
  const { base, plan, bindings, pool } = ask('octokit_gate', { options: rest, port: portState, env: runner, now_ms: now() });

  let snapshot = null;
  let ledger = null;
  let planAdmitted = plan === null;
  // With a port and a pool: the admission the pool gave the plan, until it is released, the
  // cost it admitted and what the requests sent under it have spent of that.
  let admission = null;
  let admitted = null;
  let spent = { rest: 0, graphql: 0, content: 0 };
  let admitting = null;
  // What admitted requests not yet answered will spend, by bucket.
  const inFlight = {};

  /** The core's answer on the rate state seen so far, for `requestPlan` to `bucket`. */
  const decideNow = (requestPlan, bucket = null) => ask('octokit_decide', {
    input: { ...base, rate: snapshot, ledger, plan: requestPlan, now_ms: now() }, in_flight: inFlight, bucket,
  });

  /** Throws what the decision says, unless it lets the request go; `refused` is the pool's refusal. */
  function enforce({ decision, go }, cause, refused) {
    if (go) return;
    if (!decision.receipt) throw new DeferralBlockedError(decision);
    const receipt = parseDeferredReceiptV1({ ...decision.receipt, bindings });
    const why = decision.diagnostics.map((d) => d.message).join('; ');
    const error = new DeferredError(receipt, `${decision.status} (${receipt.reason}): ${cause ?? why}; resume after ${new Date(receipt.resume_after_ms).toISOString()}`, decision.status);
    if (refused) Object.assign(error, { pool: refused.pool, poolReason: refused.reason });
    throw error;
  }

  /**
   * Launched by deferral-host (DEFERRAL_REPORT_FILE set): the plan's gate line, as the CLI
   * prints it, appended to the host's report file, so its pool learns what the work saw and
   * planned whatever the process prints last. A failure to write is a warning, never the work's.
   */
  function report() {
    const path = env.DEFERRAL_REPORT_FILE;
    if (!path) return;
    const { line } = ask('octokit_report', { input: { ...base, rate: snapshot, ledger, plan, now_ms: now() }, pool, admission });
    if (!line) return;
    try {
      appendFileSync(path, `${line}\n`, 'utf8');
    } catch (err) {
      process.emitWarning(`deferral: could not append to ${path}: ${err.message}`);
    }
  }

  /**
   * The plan, once, before the first request: the core's decision, then with a port and a pool
   * the pool's admission. Refused, the pool's window joins the rate state and the same decision
   * runs again, which throws DeferredError; a decision that still lets the plan through is the
   * host and the gate disagreeing, thrown as PortError coordinator-failed. Nothing is sent
   * without an admission: a port that fails throws its PortError.
   */
  async function admitPlan() {
    const first = decideNow(plan);
    enforce(first);
    if (pool !== null) {
      const { cost, rate } = ask('octokit_admission', { decision: first.decision, now_ms: now() });
      const answer = await port.admit({ pool, cost, rate });
      if (!answer.admitted) {
        snapshot = ask('octokit_fold', { snapshot, window: answer.window, clock_offset_ms: first.decision.clock_offset_ms, now_ms: now() }).snapshot;
        const again = decideNow(plan);
        if (again.go) ask('octokit_disagrees', { pool });
        enforce(again, `pool ${pool} refused: ${answer.reason}`, answer);
      }
      admission = answer.admission;
      admitted = cost;
    }
    planAdmitted = true;
    report();
  }

  return {
    hasRateState: () => snapshot !== null,

    /** Records the answer of GET /rate_limit (200, or 404 when the server does not rate-limit). */
    rateLimitAnswer(status, data) {
      const parsed = call('parse_rate_limit', { status, body: bodyText(data) });
      if (!parsed.ok) throw new DeferralBlockedError(ask('octokit_unreadable', { error: parsed.error }).decision);
      snapshot = parsed.snapshot;
    },

    /** Before the first request: the plan admitted once (shared by concurrent first requests). */
    async admitPlan() {
      if (planAdmitted) return;
      admitting ??= admitPlan().finally(() => { admitting = null; });
      await admitting;
    },

    /** The pool's admission id of the plan, or null. */
    admission: () => admission,

    /**
     * Gives the pool's admission back, with the rate state seen last; answers the port's
     * {released, already}, or null when there is nothing to release.
     */
    async release() {
      if (admission === null) return null;
      const { rate } = ask('octokit_admission', { decision: decideNow(null).decision, now_ms: now() });
      const id = admission;
      admission = null;
      return port.release(id, rate);
    },

    /**
     * Before a request, once the plan is admitted: this request's own cost with what is in
     * flight counted, and with a pool within what the pool admitted (PortError
     * `admission-spent` beyond it, `admission-released` after a release). Answers `release`,
     * to call once the request has its answer.
     */
    admit(request) {
      const answer = decideNow(request.plan, request.bucket);
      enforce(answer);
      // With a pool, at most what was admitted: beyond it, or after a release, nothing is sent.
      if (pool !== null) spent = ask('octokit_spend', { pool, admission, admitted, spent, decision: answer.decision }).spent;
      for (const [bucket, n] of Object.entries(answer.spends)) inFlight[bucket] = (inFlight[bucket] ?? 0) + n;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        for (const [bucket, n] of Object.entries(answer.spends)) inFlight[bucket] -= n;
      };
    },

    /**
     * After an answer (a response or a RequestError's): records its rate headers, and throws
     * DeferredError when the core classifies it as a primary or secondary limit.
     */
    observe(status, headers, data, request) {
      const seen = ask('octokit_observe', { ledger, snapshot, path: request.path, status, headers: headerObject(headers), body: bodyText(data), now_ms: now() });
      ledger = seen.ledger;
      snapshot = seen.snapshot;
      if (!seen.limited) return;
      // When the core finds no hold to wait for (a server that does not rate-limit), the answer goes through.
      const bucket = seen.bucket ? ` (${seen.bucket})` : '';
      enforce(decideNow(request.plan, request.bucket), `GitHub answered ${status}, a ${seen.kind} rate limit${bucket}`);
    },
  };
}
