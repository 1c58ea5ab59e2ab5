// The options form of createResumableDeferralHost: retained ownership through the port client
// of `deferral-host serve` (ids, handles and outcomes). The wasm core checks receipts and
// lifecycle steps here first, so a request the host would refuse is refused locally.
import { validateReceipt, lifecycleTransition } from '../action/lib/core.js';
import { createPortClient, PortError, receiptText } from './host-port.js';

const EVENT_OF_OUTCOME = { complete: 'complete', blocked: 'block', deferred: 'defer' };

/** A local refusal: the same shape as the port's errors, with status 0 (nothing was sent). */
const refuse = (code, message, path) => new PortError(0, code, message, path);

/** Validates receipt text or object with the core; answers the parsed receipt or throws. */
function checkReceipt(receipt) {
  const checked = validateReceipt(receiptText(receipt));
  if (!checked.ok) throw refuse(checked.error.code, checked.error.message, checked.error.path);
  return checked.receipt;
}

/** The core's verdict on `event` from the deferral's position; throws illegal-transition. */
function checkStep(deferral, event) {
  const step = lifecycleTransition({
    state: deferral.state,
    event,
    reentries: deferral.reentries,
    max_reentries: deferral.max_reentries,
  });
  if (!step.ok) throw refuse(step.error.code, step.error.message, step.error.path);
  return step;
}

const sameBindings = (a, b) => JSON.stringify(a.bindings) === JSON.stringify(b.bindings);

/**
 * `port`: a client from createPortClient, or its options ({url, token}). `options.launch` is
 * the default launch target of retain; `options.maxReentries` its default bound.
 */
export function createClientHost(port, options = {}) {
  const client = typeof port?.record === 'function' ? port : createPortClient(port);

  return {
    /** Hands a handoff receipt to the host: answers {id, receipt (retained), cancellationHandle}. */
    async retain(receipt, { launch = options.launch, maxReentries = options.maxReentries } = {}) {
      const handoff = checkReceipt(receipt);
      if (handoff.ownership?.disposition === 'retained') {
        throw refuse('already-retained', 'the receipt is already retained; hand over the handoff receipt the gate emitted', '$.ownership');
      }
      if (typeof launch !== 'string' || launch === '') {
        throw refuse('invalid-launch', 'retain needs a launch target: exec:COMMAND or workflow-dispatch:OWNER/REPO/WORKFLOW@REF');
      }
      checkStep({ state: 'ready', reentries: 0, max_reentries: maxReentries }, 'record');
      const answer = await client.record({ receipt, launch, maxReentries });
      // Trust but verify: what comes back must be a valid retained receipt of the same work.
      const retained = checkReceipt(answer.receipt);
      if (retained.ownership?.disposition !== 'retained' || !sameBindings(retained, handoff)) {
        throw refuse('unexpected-receipt', 'the host answered a receipt that is not the retained form of the one sent');
      }
      return { id: answer.id, receipt: retained, cancellationHandle: answer.cancellation_handle };
    },

    /** The deferral as `deferral-host status --json ID` prints it. */
    status: (id) => client.get(id),

    /** Cancels with the cancellation handle; a terminal deferral is refused without a request. */
    async cancel(id, handle) {
      checkStep(await client.get(id), 'cancel');
      return client.cancel(id, handle);
    },

    /** Proves a launch's claim with its wake-up handle: answers {id, attempt, receipt, ...}. */
    claim: (id, wakeupHandle) => client.claim(id, wakeupHandle),

    /**
     * A fresh process reports how its attempt ended: the lifecycle step and the new receipt
     * (for `deferred`) are checked locally, the claim is proven with the wake-up handle, then
     * the outcome is recorded. Answers {id, state, cause[, receipt]}.
     */
    async resume(id, { attempt, wakeupHandle, outcome, receipt } = {}) {
      const event = EVENT_OF_OUTCOME[outcome];
      if (!event) throw refuse('invalid-outcome', `outcome ${JSON.stringify(outcome)} is not complete, blocked or deferred`);
      if (outcome === 'deferred') {
        if (receipt === undefined) throw refuse('missing-receipt', 'a deferred outcome needs the new receipt');
        checkReceipt(receipt);
      }
      checkStep(await client.get(id), event);
      const claim = await client.claim(id, wakeupHandle);
      if (attempt !== undefined && claim.attempt !== attempt) {
        throw refuse('stale-attempt', `attempt ${attempt} is not the current attempt ${claim.attempt}`);
      }
      return client.outcome(id, { attempt: claim.attempt, outcome, handle: wakeupHandle, receipt });
    },
  };
}
