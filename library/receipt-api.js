// The receipt functions of the library, with upstream's names and signatures
// (parseDeferredReceiptV1, createGovernedHandoffReceipt), every check made by the wasm core.
// A receipt given as an object is checked as its JSON text, so objects and text meet one rule.
import { validateReceipt as validateText, digest } from '../shared/wasm.js';
import { ask, encode, receiptOf } from './ask.js';

const titles = ask('titles');
/** Upstream's message of a refused receipt; the core's code, path and message are properties. */
export const INVALID_RECEIPT = titles.invalid_receipt;
/** Upstream's message of a call the lifecycle does not allow now. */
export const INVALID_TRANSITION = titles.invalid_transition;

/**
 * Validates a receipt given as text, bytes or an object. Answers {ok: true, receipt} or
 * {ok: false, error: {code, path, message}}; never throws.
 */
export function validateReceipt(value) {
  const input = value instanceof Uint8Array ? value : encode(value);
  if (typeof input === 'string' || input instanceof Uint8Array) return validateText(input);
  if (input.text !== null && input.dropped.length === 0) return validateText(input.text);
  try {
    return { ok: true, receipt: receiptOf(ask('parse', { receipt: input })) };
  } catch (err) {
    return { ok: false, error: { code: err.code, path: err.path, message: err.detail } };
  }
}

/** Upstream's parser: the validated receipt, or a TypeError "invalid deferred receipt". */
export function parseDeferredReceiptV1(value) {
  const checked = validateReceipt(value);
  if (checked.ok) return checked.receipt;
  return receiptOf(ask('parse', { receipt: encode(value) })); // throws what the core refused
}

/**
 * Upstream's builder of a governed-handoff receipt: resource `rest` or `graphql`; the window
 * defaults to the core's (upstream's: one minute after issue until fifteen minutes after).
 */
export function createGovernedHandoffReceipt(input) {
  return receiptOf(ask('handoff', { input: encode(input) }));
}

/** The receipt's digest: lowercase hex SHA-256 of its JCS form, as the core and the host compute it. */
export function receiptDigest(receipt) {
  return digest('value', JSON.stringify(parseDeferredReceiptV1(receipt))).digest;
}
