// A durable port with upstream's methods {schedule, state, cancel}, backed by `deferral-host
// serve`: upstream's callers get a real durable host. Deferrals are found by the digest of the
// handoff receipt that was recorded (lowercase hex SHA-256 of its JCS form), which a retained
// receipt also gives once its ownership is put back to the handoff form. The raw cancellation
// handle serve answers once is kept in a key store under that digest, never returned or logged.
// `admit` and `release` speak for one admission across runners: a pool of the host admits a
// plan's cost, or refuses with the pool's window. Every check, digest and state mapping is the
// core's (driver/src/library/serve.rs, driver/src/library/pool.rs).
import { ask, encode } from './ask.js';
import { createPortClient, orderFields } from './host-port.js';
import { createFileKeyStore } from './key-store.js';

/**
 * createServePort({url, token, launch, maxReentries?, priority?, fairnessKey?, keyStore?,
 * timeoutMs?, env?}) or createServePort({client, launch, ...}). `launch` is the target serve
 * wakes (`exec:...` or `workflow-dispatch:OWNER/REPO/WORKFLOW@REF`); `priority` and
 * `fairnessKey` the deferral's place in its pool (kept by the host beside the receipt);
 * `keyStore` is {get, set} by receipt digest (default: createFileKeyStore()).
 */
export function createServePort(options = {}) {
  const { launch, maxReentries, priority, fairnessKey, keyStore = createFileKeyStore() } = options;
  const usable = typeof keyStore?.get === 'function' && typeof keyStore?.set === 'function';
  ask('serve_port', { launch: launch ?? null, key_store: usable });
  orderFields({ priority, fairnessKey });
  const client = options.client ?? createPortClient(options);
  /** The digest under which serve recorded the receipt: that of its handoff form. */
  const recordedDigest = (receipt) => ask('recorded_digest', { receipt: encode(receipt) }).digest;

  /** What the port answers for a deferral, checked before any of it is used. */
  const checked = (found, needId = false) => {
    ask('port_deferral', { id: found?.id ?? (needId ? '' : null), state: found?.state ?? null });
    return found;
  };

  async function deferralOf(receipt) {
    const digest = recordedDigest(receipt);
    const known = await keyStore.get(digest);
    if (known?.id) ask('port_deferral', { id: known.id });
    return checked(known?.id ? await client.get(known.id) : await client.getByReceipt(digest));
  }

  return {
    url: client.url,

    /** Records a handoff receipt (once per receipt digest); answers the retained digests. */
    async schedule(receipt) {
      const { receipt: handoff, digest } = ask('schedule', { receipt: encode(receipt) });
      const known = await keyStore.get(digest);
      if (known?.wakeupDigest) return { wakeupDigest: known.wakeupDigest, cancellationDigest: known.cancellationDigest };
      const answer = await client.record({ receipt: handoff, launch, maxReentries, priority, fairnessKey });
      // Recorded before through another port (or a key store that lost it), serve answers the
      // id only: the core refuses that, as any answer that is not the retained receipt sent.
      const { handles } = ask('scheduled', {
        digest, id: answer.id ?? null, already_recorded: answer.already_recorded === true,
        receipt: answer.receipt === undefined ? null : encode(answer.receipt),
        cancellation_handle: answer.cancellation_handle ?? null,
      });
      // serve gives the handle once, to the first recorder.
      if (answer.cancellation_handle) {
        try {
          await keyStore.set(digest, { id: answer.id, cancellationHandle: answer.cancellation_handle, ...handles });
        } catch (err) {
          ask('key_store_failed', { id: answer.id, why: err.message });
        }
      }
      return handles;
    },

    /** deferred | resumable | cancelled | expired (and complete | blocked once it ended). */
    async state(receipt) {
      const { state, cause } = await deferralOf(receipt);
      return ask('port_state', { state, cause: cause ?? null }).state;
    },

    /**
     * Asks `pool` to admit a plan's `cost` ({rest, graphql, content}) with the `rate` state the
     * caller read ({observed_ms, rest?, graphql?}, each {limit, remaining, reserve, reset_ms}).
     * Answers {admitted: true, admission, pool, expiresMs, window} or {admitted: false, pool,
     * reason, window}, checked before it is returned.
     */
    async admit({ pool, cost, rate } = {}) {
      const answer = await client.admit({ pool, cost, rate });
      return ask('pool_admitted', { pool: pool ?? null, answer }).admission;
    },

    /** Gives an admission back, with the rate state seen last if given: {released, already}. */
    async release(admission, rate) {
      const answer = await client.release(admission, rate);
      return ask('pool_released', { answer }).release;
    },

    /** Cancels with the kept handle; cancelling a cancelled deferral again changes nothing. */
    async cancel(receipt) {
      const digest = recordedDigest(receipt);
      const known = await keyStore.get(digest);
      ask('cancel_handle', { known: Boolean(known?.cancellationHandle) });
      if (known.id) ask('port_deferral', { id: known.id });
      const id = known.id ?? checked(await client.getByReceipt(digest), true).id;
      try {
        await client.cancel(id, known.cancellationHandle);
      } catch (err) {
        const after = await client.get(id).catch(() => null);
        if (!ask('cancel_refused', { code: err.code ?? null, state: after?.state ?? null }).ignore) throw err;
      }
    },
  };
}
