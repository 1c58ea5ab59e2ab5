// Receipts for resume tests, made by the core's own decision (through the built wasm) so their
// bindings are exactly what a gate with the same inputs would bind.
import { createHash } from 'node:crypto';
import { call } from '../../dist/lib/wasm.js';

export const DEFAULT_POLICY = { rest_reserve: '10%', graphql_reserve: '10%', resume_buffer_ms: 60_000, resume_window_ms: 21_600_000 };

/** The Action's default scope for a runner environment (see action/lib/gate-options.js). */
export function scopeOf(env) {
  return { api: env.GITHUB_API_URL, repository: env.GITHUB_REPOSITORY, workflow: env.GITHUB_WORKFLOW_REF, job: env.GITHUB_JOB };
}

/**
 * A handoff receipt issued at `issuedMs` for REST below its reserve, the window resetting at
 * `resetMs` (host clock, no offset). Options: scope, request, plan, policy, freshApproval.
 */
export function makeReceipt({ issuedMs, resetMs, scope, request = null, plan = null, policy = DEFAULT_POLICY, freshApproval = true }) {
  const answer = call('decide', {
    rate: { unlimited: false, resources: { core: { limit: 5000, remaining: 10, used: 4990, reset: Math.ceil(resetMs / 1000) } } },
    policy,
    scope,
    request,
    plan,
    fresh_approval_required: freshApproval,
    now_ms: issuedMs,
    clock_offset_ms: 0,
  });
  if (!answer.ok || answer.decision.status !== 'deferred') throw new Error(`no receipt: ${JSON.stringify(answer)}`);
  return answer.decision.receipt;
}

/** A receipt due now: issued 20 minutes ago, its window reset 19 minutes ago. */
export function dueReceipt(opts) {
  const now = Date.now();
  return makeReceipt({ issuedMs: now - 20 * 60_000, resetMs: now - 19 * 60_000, ...opts });
}

/** The retained form of a receipt, with the digests of the given raw handles. */
export function retain(receipt, wakeupHandle, cancellationHandle = 'cancel-handle-for-tests') {
  const sha = (t) => createHash('sha256').update(t).digest('hex');
  return { ...receipt, ownership: { disposition: 'retained', mode: 'durable-host', wakeup_digest: sha(wakeupHandle), cancellation_digest: sha(cancellationHandle) } };
}
