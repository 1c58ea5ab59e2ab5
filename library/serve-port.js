// A durable port with upstream's methods {schedule, state, cancel}, backed by `deferral-host
// serve`: upstream's callers get a real durable host. Deferrals are found by the digest of the
// handoff receipt that was recorded (lowercase hex SHA-256 of its JCS form), which a retained
// receipt also gives once its ownership is put back to the handoff form. The raw cancellation
// handle serve answers once is kept in a key store under that digest, never returned or logged.
import { createPortClient, PortError } from './host-port.js';
import { createFileKeyStore } from './key-store.js';
import { parseDeferredReceiptV1, receiptDigest } from './receipt-api.js';

const HANDOFF = { disposition: 'handoff', mode: 'governed-handoff', wakeup_digest: null, cancellation_digest: null };

// The host's states as upstream's port answers them; complete and blocked are kept as they are
// (a resumable host treats every state but `resumable` as "do not run").
function portState(deferral) {
  if (deferral.state === 'cancelled') return deferral.cause === 'expired' ? 'expired' : 'cancelled';
  if (deferral.state === 'ready') return 'deferred';
  return deferral.state;
}

/** The digest under which serve recorded the receipt: that of its handoff form. */
export function recordedDigest(receipt) {
  return receiptDigest({ ...parseDeferredReceiptV1(receipt), ownership: HANDOFF });
}

/**
 * createServePort({url, token, launch, maxReentries?, keyStore?, timeoutMs?, env?}) or
 * createServePort({client, launch, ...}). `launch` is the target serve wakes
 * (`exec:...` or `workflow-dispatch:OWNER/REPO/WORKFLOW@REF`); `keyStore` is {get, set} by
 * receipt digest (default: createFileKeyStore()).
 */
export function createServePort(options = {}) {
  const { launch, maxReentries, keyStore = createFileKeyStore() } = options;
  if (typeof launch !== 'string' || launch === '') {
    throw new PortError(0, 'invalid-launch', 'the port needs a launch target: exec:COMMAND or workflow-dispatch:OWNER/REPO/WORKFLOW@REF');
  }
  if (typeof keyStore?.get !== 'function' || typeof keyStore?.set !== 'function') {
    throw new PortError(0, 'invalid-key-store', 'the key store needs get(key) and set(key, value) methods');
  }
  const client = options.client ?? createPortClient(options);

  async function deferralOf(receipt) {
    const digest = recordedDigest(receipt);
    const known = await keyStore.get(digest);
    return known?.id ? client.get(known.id) : client.getByReceipt(digest);
  }

  return {
    url: client.url,

    /** Records a handoff receipt (once per receipt digest); answers the retained digests. */
    async schedule(receipt) {
      const handoff = parseDeferredReceiptV1(receipt);
      if (handoff.ownership.disposition !== 'handoff') {
        throw new PortError(0, 'already-retained', 'schedule takes the governed-handoff receipt the gate emitted');
      }
      const digest = receiptDigest(handoff);
      const known = await keyStore.get(digest);
      if (known?.wakeupDigest) return { wakeupDigest: known.wakeupDigest, cancellationDigest: known.cancellationDigest };
      const answer = await client.record({ receipt: handoff, launch, maxReentries });
      // Recorded before through another port (or a key store that lost it): serve answers the
      // id only; the retained receipt and the handle are with whoever scheduled it first.
      if (answer.already_recorded && answer.receipt === undefined) {
        throw new PortError(0, 'already-recorded', `deferral ${answer.id} recorded this receipt before, through another port; its retained receipt and cancellation handle are where it was scheduled`);
      }
      const retained = parseDeferredReceiptV1(answer.receipt);
      if (retained.ownership.disposition !== 'retained' || recordedDigest(retained) !== digest) {
        throw new PortError(0, 'unexpected-receipt', 'the host answered a receipt that is not the retained form of the one sent');
      }
      const handles = { wakeupDigest: retained.ownership.wakeup_digest, cancellationDigest: retained.ownership.cancellation_digest };
      // serve gives the handle once, to the first recorder.
      if (answer.cancellation_handle) {
        try {
          await keyStore.set(digest, { id: answer.id, cancellationHandle: answer.cancellation_handle, ...handles });
        } catch (err) {
          throw new PortError(0, 'key-store-failed', `deferral ${answer.id} is recorded, but its cancellation handle could not be kept: ${err.message}`);
        }
      }
      return handles;
    },

    /** deferred | resumable | cancelled | expired (and complete | blocked once it ended). */
    async state(receipt) {
      return portState(await deferralOf(receipt));
    },

    /** Cancels with the kept handle; cancelling a cancelled deferral again changes nothing. */
    async cancel(receipt) {
      const digest = recordedDigest(receipt);
      const known = await keyStore.get(digest);
      if (!known?.cancellationHandle) {
        throw new PortError(0, 'no-cancellation-handle', 'this port keeps no cancellation handle for the receipt: cancel where it was scheduled, or with deferral-host cancel and the handle');
      }
      const id = known.id ?? (await client.getByReceipt(digest)).id;
      try {
        await client.cancel(id, known.cancellationHandle);
      } catch (err) {
        if (err.code !== 'illegal-transition' || (await client.get(id)).state !== 'cancelled') throw err;
      }
    },
  };
}
