// Upstream's resumable host: createResumableDeferralHost(port, nowMs) over a durable port
// {schedule, state, cancel}. Receipts, the resume window and the lifecycle step are the wasm
// core's checks; this file only orders the calls. Errors are upstream's two TypeErrors, with
// the core's code as a property.
import { lifecycleTransition } from '../action/lib/core.js';
import { parseDeferredReceiptV1, receiptWindow } from './receipt-api.js';

export const INVALID_TRANSITION = 'invalid deferral transition';

function transitionError(code, detail) {
  return Object.assign(new TypeError(INVALID_TRANSITION), { code, detail });
}

// The port's answers as lifecycle states: `expired` is the host's cancellation by expiry.
const LIFECYCLE_STATE = { deferred: 'deferred', resumable: 'resumable', cancelled: 'cancelled', expired: 'cancelled', complete: 'complete', blocked: 'blocked' };
const OUTCOMES = new Set(['complete', 'deferred', 'blocked']);

/** May a fresh process's attempt end from the port's state? Only from `resumable`, says the core. */
function mayRun(portState) {
  const state = LIFECYCLE_STATE[portState];
  return state !== undefined && lifecycleTransition({ state, event: 'complete' }).ok === true;
}

function retained(receipt) {
  if (receipt.ownership.disposition !== 'retained') {
    throw transitionError('not-retained', 'the receipt is a governed handoff; retain it first');
  }
  return receipt;
}

/** The fresh process's answer, checked: a known status, and for `deferred` a valid receipt. */
function checkedResult(result, previous) {
  if (!OUTCOMES.has(result?.status)) {
    throw transitionError('invalid-outcome', `the fresh process answered status ${JSON.stringify(result?.status)}, not complete, deferred or blocked`);
  }
  if (result.status !== 'deferred') return { status: result.status };
  const next = parseDeferredReceiptV1(result.receipt);
  // Another scope is other work, never a continuation of this deferral (DESIGN.md section 8).
  if (next.bindings.scope_digest !== previous.bindings.scope_digest) {
    return { status: 'blocked', code: 'binding-mismatch', field: 'scope_digest' };
  }
  return { status: 'deferred', receipt: next };
}

export function createPortHost(port, nowMs = Date.now) {
  if (typeof nowMs !== 'function') throw new TypeError('nowMs must be a function answering epoch milliseconds');
  return {
    /** Schedules a governed-handoff receipt with the port; answers its retained form. */
    async retain(source) {
      const handoff = parseDeferredReceiptV1(source);
      if (handoff.ownership.disposition !== 'handoff') {
        throw transitionError('already-retained', 'the receipt is already retained');
      }
      if (receiptWindow(handoff, nowMs()) === 'expired') {
        throw transitionError('expired', "the receipt's resume window has passed");
      }
      const handles = await port.schedule(handoff);
      return parseDeferredReceiptV1({
        ...handoff,
        ownership: {
          disposition: 'retained',
          mode: 'durable-host',
          wakeup_digest: handles?.wakeupDigest,
          cancellation_digest: handles?.cancellationDigest,
        },
      });
    },

    /** Cancels a retained receipt through the port. */
    async cancel(source) {
      await port.cancel(retained(parseDeferredReceiptV1(source)));
    },

    /**
     * Runs `freshProcess(bindings, freshApprovalRequired)` once when the receipt is due and
     * the port says it is resumable; answers {status: 'blocked'} when the port says otherwise.
     */
    async resume(source, freshProcess) {
      const receipt = retained(parseDeferredReceiptV1(source));
      const window = receiptWindow(receipt, nowMs());
      if (window !== 'open') throw transitionError(window, window === 'expired' ? "the receipt's resume window has passed" : 'the receipt is not due yet');
      if (typeof freshProcess !== 'function') throw new TypeError('resume needs the fresh process as a function');
      if (!mayRun(await port.state(receipt))) return { status: 'blocked' };
      return checkedResult(await freshProcess(receipt.bindings, receipt.fresh_approval_required), receipt);
    },
  };
}
