// The library's one way into its decisions, which the core makes (driver/src/library): an op and
// the facts the JS holds go in; the answer comes back, or the error the core described is
// thrown. No code, message or default is written here or in the files that ask.
import { call } from '../shared/wasm.js';

/** A refusal of the port (HTTP status and its stable code), or status 0 when refused locally. */
export class PortError extends Error {
  constructor(status, code, message, path) {
    super(message);
    this.name = 'PortError';
    this.status = status;
    this.code = code;
    if (path) this.path = path;
  }
}

/** The error the core described: its class, message and properties. */
function failure({ class: name, message, props }) {
  if (name === PortError.name) return new PortError(props.status, props.code, message, props.path);
  return Object.assign(new TypeError(message), props);
}

/** The core's answer to `op` on `facts`, or its refusal thrown. */
export function ask(op, facts = {}) {
  const answer = call('library', { op, ...facts });
  if (!answer.ok) throw failure(answer.error);
  return answer;
}

/**
 * A value as the core reads it: text as it is, anything else as its JSON with the values JSON
 * cannot hold (undefined, functions, symbols), which JSON.stringify would drop silently, named.
 */
export function encode(value) {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  const dropped = [];
  const note = (key, v) => {
    const kind = typeof v;
    if (kind !== 'undefined' && kind !== 'function' && kind !== 'symbol') return v;
    dropped.push([key, kind]);
    return undefined;
  };
  try {
    return { text: JSON.stringify(value, note) ?? null, dropped };
  } catch (err) {
    return { text: null, dropped, why: err.message };
  }
}

/** A receipt the core answered (its text, in the contract's field order), as an object. */
export const receiptOf = (answer) => JSON.parse(answer.receipt);
