// The receipt functions of the library, with upstream's names and signatures
// (parseDeferredReceiptV1, createGovernedHandoffReceipt), every check made by the wasm core.
// A receipt given as an object is checked as its JSON text, so objects and text meet one rule.
import { validateReceipt as validateBytes, call, digest } from '../action/lib/core.js';

export const INVALID_RECEIPT = 'invalid deferred receipt';

/** Upstream's TypeError, carrying the core's code, JSON path and message as properties. */
export function receiptTypeError(error) {
  const err = new TypeError(INVALID_RECEIPT);
  err.code = error.code;
  err.path = error.path;
  err.detail = error.message;
  return err;
}

// JSON.stringify drops undefined, functions and symbols silently; a receipt carrying one is not
// the document it seems, so those are refused (as an unknown field would be).
function strictReplacer(key, value) {
  const kind = typeof value;
  if (kind === 'undefined' || kind === 'function' || kind === 'symbol') {
    throw Object.assign(new TypeError(INVALID_RECEIPT), {
      code: key === '' ? 'not-an-object' : 'wrong-type',
      path: key === '' ? '$' : `$..${key}`,
      detail: `${key || 'the receipt'} is ${kind}, which JSON cannot hold`,
    });
  }
  return value;
}

/**
 * The receipt as bytes for the core: text and bytes go as they are; any other value as its
 * JSON. Throws the TypeError for a value JSON cannot carry (undefined, a BigInt, a cycle).
 */
export function receiptBytes(value) {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (value instanceof Uint8Array) return value;
  let text;
  try {
    text = JSON.stringify(value, strictReplacer);
  } catch (err) {
    if (err instanceof TypeError && err.message === INVALID_RECEIPT) throw err;
    throw receiptTypeError({ code: 'not-an-object', path: '$', message: `the value has no JSON form: ${err.message}` });
  }
  return Buffer.from(text ?? 'undefined', 'utf8');
}

/**
 * Validates a receipt given as text, bytes or an object. Answers {ok: true, receipt} or
 * {ok: false, error: {code, path, message}}; never throws.
 */
export function validateReceipt(value) {
  let bytes;
  try {
    bytes = receiptBytes(value);
  } catch (err) {
    return { ok: false, error: { code: err.code, path: err.path, message: err.detail } };
  }
  return validateBytes(bytes);
}

/** Upstream's parser: the validated receipt, or a TypeError "invalid deferred receipt". */
export function parseDeferredReceiptV1(value) {
  const checked = validateReceipt(value);
  if (!checked.ok) throw receiptTypeError(checked.error);
  return checked.receipt;
}

const REASON_OF_RESOURCE = { rest: 'rest-reserve', graphql: 'graphql-reserve' };

/**
 * Upstream's builder of a governed-handoff receipt: resource `rest` or `graphql`; the window
 * defaults to one minute after issue until fifteen minutes after issue, as upstream's.
 */
export function createGovernedHandoffReceipt(input) {
  const i = input ?? {};
  return parseDeferredReceiptV1({
    schema: 1,
    version: 'deferred-receipt-v1',
    status: 'deferred',
    reason: REASON_OF_RESOURCE[i.resource] ?? i.resource,
    issued_at_ms: i.issuedAtMs,
    resume_after_ms: i.resumeAfterMs ?? i.issuedAtMs + 60_000,
    resume_by_ms: i.resumeByMs ?? i.issuedAtMs + 15 * 60_000,
    bindings: { scope_digest: i.scopeDigest, request_digest: i.requestDigest, plan_digest: i.planDigest },
    ownership: { disposition: 'handoff', mode: 'governed-handoff', wakeup_digest: null, cancellation_digest: null },
    fresh_approval_required: i.freshApprovalRequired,
  });
}

/** The receipt's digest: lowercase hex SHA-256 of its JCS form, as the core and the host compute it. */
export function receiptDigest(receipt) {
  const answer = digest('value', JSON.stringify(parseDeferredReceiptV1(receipt)));
  if (!answer.ok) throw receiptTypeError(answer.error);
  return answer.digest;
}

/**
 * Where `nowMs` stands against the receipt's window, by the core's preflight (its first checks
 * are validity, then `not-yet-due`, then `expired`): answers `not-yet-due`, `open` or `expired`.
 */
export function receiptWindow(receipt, nowMs) {
  const answer = call('preflight', {
    receipt: typeof receipt === 'string' ? receipt : JSON.stringify(receipt),
    fresh: { rate: { unlimited: true, resources: {} }, scope: null, now_ms: nowMs },
  });
  const code = answer.preflight?.code;
  if (code === 'invalid-receipt') throw receiptTypeError({ code, path: '$', message: answer.preflight.diagnostics[0]?.message });
  if (code === 'invalid-input') throw new TypeError(`the clock must give epoch milliseconds as a whole number, got ${nowMs}`);
  return code === 'not-yet-due' || code === 'expired' ? code : 'open';
}
