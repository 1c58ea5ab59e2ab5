// Loads the WebAssembly core once and exposes its functions as plain JS calls on JSON.
// The module is instantiated synchronously from bytes next to this file: no fetch, no async
// start-up cost beyond inflating (raw deflate, about 1 ms) and compiling it.
// DEFERRAL_TRACE_CORE=1 prints each call into the core on stderr (how the tests count them).
// It belongs to neither the Action nor the library: both import it (shared/ is copied into
// dist/lib/, so its paths are those of dist/lib/; scripts/build-dist.sh).
import { builtin } from './builtin.js';
import * as wasm from '../wasm/deferral_wasm.js';

const { readFileSync } = builtin('node:fs');
const { inflateRawSync } = builtin('node:zlib');
// Where wasm/ is from this file once built: each bundle defines DEFERRAL_WASM_DIR (dist/main.js
// sits beside wasm/; scripts/build-dist.sh).
const WASM_DIR = typeof DEFERRAL_WASM_DIR === 'undefined' ? '../wasm/' : DEFERRAL_WASM_DIR;
// One output chunk larger than the module: zlib's default of 16 KiB takes some 30 rounds and a
// concatenation (about 0.5 ms more per process).
const bytes = inflateRawSync(readFileSync(new URL(`${WASM_DIR}deferral_wasm_bg.wasm.deflate`, import.meta.url)), { chunkSize: 1 << 20 });
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
// Room for any text place() passes: UTF-8 takes at most 3 bytes per UTF-16 code unit.
const INPUT_ROOM = READ_LIMIT * 3;
// The core's input buffer, taken at its largest on the first validation (a gate run never
// validates, so it never pays for it): it never moves after that.
let inputAt = -1;
// Views of wasm memory, made again when memory grows (the old buffer is then detached, and
// views of it have length 0).
let input = new Uint8Array(0);
let heap = input;
let words = new Uint32Array(0);
function refreshViews() {
  if (inputAt < 0) inputAt = wasm.input_buffer(INPUT_ROOM);
  input = new Uint8Array(memory.buffer, inputAt, INPUT_ROOM);
  heap = Buffer.from(memory.buffer);
  words = new Uint32Array(memory.buffer);
}

/** Writes receipt text or bytes straight into the core's input buffer; answers the length. */
function place(receipt) {
  if (input.length === 0) refreshViews();
  if (typeof receipt === 'string') {
    const text = receipt.length > READ_LIMIT ? receipt.slice(0, READ_LIMIT) : receipt;
    return encoder.encodeInto(text, input).written;
  }
  const bytes = receipt.length > READ_LIMIT ? receipt.subarray(0, READ_LIMIT) : receipt;
  input.set(bytes);
  return bytes.length;
}

/** The refusal the core describes at `at`: where its text is, then its three parts' lengths. */
function refusal(at) {
  if (heap.length === 0) refreshViews();
  const word = at >>> 2;
  const code = words[word];
  const path = code + words[word + 1];
  const message = path + words[word + 2];
  const end = message + words[word + 3];
  return { code: heap.toString('utf8', code, path), path: heap.toString('utf8', path, message), message: heap.toString('utf8', message, end) };
}

/**
 * Validates a receipt: text, bytes (Buffer, Uint8Array) or an already parsed object. Answers
 * {ok: true, receipt} (the receipt parsed when first read) or {ok: false, error: {code, path,
 * message}}.
 */
export function validateReceipt(receipt) {
  const parsed = receipt !== null && typeof receipt === 'object' && !ArrayBuffer.isView(receipt);
  const text = parsed ? JSON.stringify(receipt) : receipt;
  if (trace) process.stderr.write('deferral-core-call validate_receipt\n');
  const refused = wasm.validate_input(place(text));
  if (refused !== 0) return { ok: false, error: refusal(refused) };
  let value;
  return {
    ok: true,
    get receipt() {
      return (value ??= JSON.parse(typeof text === 'string' ? text : Buffer.from(text).toString('utf8')));
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

/** One crossing of a CLI or Action run (driver/src/run.rs): the input as JSON text, the files' bytes. */
export function run(input, files) {
  return cross('run', input, files);
}
