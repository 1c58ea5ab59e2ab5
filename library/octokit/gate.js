// One Octokit instance's gate: the rate state it has seen (one GET /rate_limit, then every
// answer's headers, in a deferral-ledger-v1 document kept in memory) and the core's decision
// before each request. Every rule (reserves, costs, classifying answers, resume times,
// receipts) is the wasm core's; this file only carries state between calls.
import { call } from '../../action/lib/core.js';
import { parseDeferredReceiptV1 } from '../receipt-api.js';
import { DeferralBlockedError, DeferredError } from './errors.js';

/** The Action's default scope (same API, repository, workflow file at its ref, and job). */
function defaultScope(env) {
  return {
    api: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/+$/, ''),
    repository: env.GITHUB_REPOSITORY || null,
    workflow: env.GITHUB_WORKFLOW_REF || null,
    job: env.GITHUB_JOB || null,
  };
}

function policyOf(options) {
  const policy = {};
  if (options.restReserve !== undefined) policy.rest_reserve = options.restReserve;
  if (options.graphqlReserve !== undefined) policy.graphql_reserve = options.graphqlReserve;
  if (options.resumeBufferMs !== undefined) policy.resume_buffer_ms = options.resumeBufferMs;
  if (options.resumeWindowMs !== undefined) policy.resume_window_ms = options.resumeWindowMs;
  if (options.jitterMaxMs !== undefined) policy.jitter_max_ms = options.jitterMaxMs;
  return policy;
}

const bodyText = (data) => (data === undefined || data === null ? '' : typeof data === 'string' ? data : JSON.stringify(data));

// Node's fetch Headers or a plain object: the core takes {name: value}.
function headerObject(headers) {
  if (!headers) return {};
  if (typeof headers.entries === 'function' && typeof headers.get === 'function') return Object.fromEntries(headers.entries());
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => typeof v === 'string' || typeof v === 'number'));
}

export function createGate(options = {}, env = process.env) {
  const now = options.now ?? Date.now;
  const base = {
    policy: policyOf(options),
    scope: options.scope ?? defaultScope(env),
    request: options.request ?? null,
    fresh_approval_required: options.freshApprovalRequired ?? true,
  };
  const plan = options.plan ?? null;
  const decide = (fields) => call('decide', { ...base, ...fields }).decision;

  // The receipt's bindings are the work's (scope, request, options.plan), whatever one request
  // was being admitted; checking them here also refuses bad options before any request.
  const shape = decide({ rate: { unlimited: true, resources: {} }, plan, now_ms: now() });
  if (shape.status === 'error') {
    const why = shape.diagnostics.map((d) => d.message).join('; ');
    throw Object.assign(new TypeError(`invalid deferral options: ${why}`), { code: shape.code });
  }
  const { bindings } = shape;

  let snapshot = null;
  let ledger = null;
  let planAdmitted = plan === null;

  /** The decision on the rate state seen so far, for `requestPlan` (or the work's plan). */
  function decideNow(requestPlan) {
    const at = now();
    let decision = decide({ rate: snapshot ?? { unlimited: false, resources: {} }, ledger, plan: requestPlan, now_ms: at });
    // A GraphQL document the estimator cannot cost is still one call of at least one point.
    if (decision.status === 'error' && decision.code === 'invalid-plan' && requestPlan?.graphql) {
      decision = decide({ rate: snapshot ?? { unlimited: false, resources: {} }, ledger, plan: { graphql: [{ points: 1 }] }, now_ms: at });
    }
    return decision;
  }

  /** Throws what the decision says, unless it is `ready`. */
  function enforce(decision, cause) {
    if (decision.status === 'ready') return;
    if (decision.status !== 'deferred') throw new DeferralBlockedError(decision);
    const receipt = parseDeferredReceiptV1({ ...decision.receipt, bindings });
    const why = decision.diagnostics.map((d) => d.message).join('; ');
    throw new DeferredError(receipt, `deferred (${receipt.reason}): ${cause ?? why}; resume after ${new Date(receipt.resume_after_ms).toISOString()}`);
  }

  return {
    hasRateState: () => snapshot !== null,

    /** Records the answer of GET /rate_limit (200, or 404 when the server does not rate-limit). */
    rateLimitAnswer(status, data) {
      const parsed = call('parse_rate_limit', { status, body: bodyText(data) });
      if (!parsed.ok) {
        // No rate state, no decision: stop rather than send blind (the Action's `error`).
        const { code, message } = parsed.error;
        throw new DeferralBlockedError({ status: 'error', code, diagnostics: [{ code, message: `GET /rate_limit answered what the core cannot read: ${message}` }] });
      }
      snapshot = parsed.snapshot;
    },

    /** Before a request: admits the work's plan once, then this request's own cost. */
    admit(requestPlan) {
      if (!planAdmitted) {
        enforce(decideNow(plan));
        planAdmitted = true;
      }
      enforce(decideNow(requestPlan));
    },

    /**
     * After an answer (a response or a RequestError's): records its rate headers, and throws
     * DeferredError when the core classifies it as a primary or secondary limit.
     */
    observe(status, headers, data, path) {
      const seen = call('observe_response', { ledger, path, status, headers: headerObject(headers), body: bodyText(data), now_ms: now() });
      if (!seen.ok) return;
      ledger = seen.ledger;
      if (!['primary-rest', 'primary-graphql', 'secondary'].includes(seen.kind)) return;
      const decision = decideNow(null);
      if (decision.status === 'ready') return; // the core found no hold to wait for: let the answer through
      enforce(decision, `GitHub answered ${status}, a ${seen.kind} rate limit`);
    },
  };
}
