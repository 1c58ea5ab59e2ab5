// Loads the WebAssembly core once and exposes its functions as plain JS calls on JSON.
// The module is instantiated synchronously from bytes next to this file: no fetch, no async
// start-up cost beyond decompressing (brotli, about 2.5 ms) and compiling it.
// DEFERRAL_TRACE_CORE=1 prints each call into the core on stderr (how the tests count them).
import { builtin } from './builtin.js';
import * as wasm from '../wasm/deferral_wasm.js';

const { readFileSync } = builtin('node:fs');
const { brotliDecompressSync } = builtin('node:zlib');
// The Action's bundle (dist/main.js) sits beside wasm/, not in lib/: its build defines
// DEFERRAL_BUNDLE (scripts/build-dist.sh).
const WASM_DIR = typeof DEFERRAL_BUNDLE === 'undefined' ? '../wasm/' : './wasm/';
const bytes = brotliDecompressSync(readFileSync(new URL(`${WASM_DIR}deferral_wasm_bg.wasm.br`, import.meta.url)));
const { memory } = wasm.initSync({ module: bytes });

const trace = process.env.DEFERRAL_TRACE_CORE === '1';

/** Calls a function of the core by name; every crossing into wasm goes through here. */
function cross(name, ...args) {
  if (trace) process.stderr.write(`deferral-core-call ${name}\n`);
  return JSON.parse(wasm[name](...args));
}

const encoder = new TextEncoder();
// One byte past the contract's 16 KiB is enough for the core to answer too-large.
const READ_LIMIT = 16 * 1024 + 1;

/** Writes receipt text or bytes straight into the core's input buffer; answers the length. */
function place(input) {
  if (typeof input === 'string') {
    const text = input.length > READ_LIMIT ? input.slice(0, READ_LIMIT) : input;
    const room = text.length * 3;
    const at = wasm.input_buffer(room); // may grow memory: take the view after it
    return encoder.encodeInto(text, new Uint8Array(memory.buffer, at, room)).written;
  }
  const bytes = input.length > READ_LIMIT ? input.subarray(0, READ_LIMIT) : input;
  const at = wasm.input_buffer(bytes.length);
  new Uint8Array(memory.buffer, at, bytes.length).set(bytes);
  return bytes.length;
}

/**
 * Validates a receipt: text, bytes (Buffer, Uint8Array) or an already parsed object. Answers
 * {ok: true, receipt} (the receipt parsed when first read) or {ok: false, error: {code, path,
 * message}}.
 */
export function validateReceipt(input) {
  const parsed = input !== null && typeof input === 'object' && !ArrayBuffer.isView(input);
  const text = parsed ? JSON.stringify(input) : input;
  if (trace) process.stderr.write('deferral-core-call validate_receipt\n');
  if (wasm.validate_input(place(text)) !== 0) return { ok: false, error: JSON.parse(wasm.last_error()) };
  let receipt;
  return {
    ok: true,
    get receipt() {
      return (receipt ??= JSON.parse(typeof text === 'string' ? text : Buffer.from(text).toString('utf8')));
    },
  };
}

/** Digest of an input: kind is value, scope, request or plan. */
export function digest(kind, text) {
  return cross('digest', kind, text);
}

/** One lifecycle step: {state, event, reentries, max_reentries}. */
export function lifecycleTransition(input) {
  return cross('lifecycle_transition', JSON.stringify(input));
}

/** Calls any JSON-in/JSON-out function of the core by name (used for the rate functions). */
export function call(name, input) {
  if (typeof wasm[name] !== 'function') throw new Error(`the wasm core has no function ${name}`);
  return cross(name, typeof input === 'string' ? input : JSON.stringify(input));
}

/** One crossing of a CLI or Action run (core/src/run.rs): the input as JSON text, the files' bytes. */
export function run(input, files) {
  return cross('run', input, files);
}
