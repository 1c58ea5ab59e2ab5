// The options form of createResumableDeferralHost: retained ownership through the port client
// of `deferral-host serve` (ids, handles and outcomes). The core checks receipts and lifecycle
// steps here first (driver/src/library/serve.rs), so a request the host would refuse is refused
// locally, as a PortError with status 0.
import { ask, encode, receiptOf } from './ask.js';
import { createPortClient, orderFields } from './host-port.js';

/**
 * `port`: a client from createPortClient, or its options ({url, token}). `options.launch` is
 * the default launch target of retain; `options.maxReentries` its default bound;
 * `options.priority` and `options.fairnessKey` its default place in the pool.
 */
export function createClientHost(port, options = {}) {
  orderFields(options);
  const client = typeof port?.record === 'function' ? port : createPortClient(port);

  return {
    /**
     * Hands a handoff receipt to the host: answers {id, receipt (retained), cancellationHandle}.
     * `priority` and `fairnessKey` are kept by the host beside the receipt, never in it.
     */
    async retain(receipt, {
      launch = options.launch, maxReentries = options.maxReentries, priority = options.priority, fairnessKey = options.fairnessKey,
    } = {}) {
      ask('client_retain', { receipt: encode(receipt), launch: launch ?? null });
      const answer = await client.record({ receipt, launch, maxReentries, priority, fairnessKey });
      // Trust but verify: what comes back must be a valid retained receipt of the same work.
      const retained = receiptOf(ask('client_retained', { sent: encode(receipt), answer: encode(answer.receipt) }));
      return { id: answer.id, receipt: retained, cancellationHandle: answer.cancellation_handle };
    },

    /** The deferral as `deferral-host status --json ID` prints it. */
    status: (id) => client.get(id),

    /** Cancels with the cancellation handle; a terminal deferral is refused without a request. */
    async cancel(id, handle) {
      ask('client_cancel', { deferral: await client.get(id) });
      return client.cancel(id, handle);
    },

    /**
     * Starts a blocked deferral again as a new deferral linked to it, proven by its cancellation
     * handle, optionally with a corrected launch target: answers {id, retryOf, receipt}. The
     * same cancellation handle holds for the new deferral.
     */
    async retry(id, handle, { launch, maxReentries } = {}) {
      const answer = await client.retry(id, { handle, launch, maxReentries });
      return { id: answer.id, retryOf: answer.retry_of, receipt: answer.receipt };
    },

    /** Proves a launch's claim with its wake-up handle: answers {id, attempt, receipt, ...}. */
    claim: (id, wakeupHandle) => client.claim(id, wakeupHandle),

    /**
     * A fresh process reports how its attempt ended: the lifecycle step and the new receipt
     * (for `deferred`) are checked locally, the claim is proven with the wake-up handle, then
     * the outcome is recorded. Answers {id, state, cause[, receipt]}.
     */
    async resume(id, { attempt, wakeupHandle, outcome, receipt } = {}) {
      const given = receipt === undefined ? null : encode(receipt);
      const { event } = ask('client_outcome', { outcome: outcome ?? null, receipt: given });
      ask('client_step', { deferral: await client.get(id), event });
      const claim = await client.claim(id, wakeupHandle);
      ask('client_claim', { attempt: attempt ?? null, current: claim.attempt });
      return client.outcome(id, { attempt: claim.attempt, outcome, handle: wakeupHandle, receipt });
    },
  };
}
