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
wasm.initSync({ module: bytes });

const trace = process.env.DEFERRAL_TRACE_CORE === '1';

/** Calls a function of the core by name; every crossing into wasm goes through here. */
function cross(name, ...args) {
  if (trace) process.stderr.write(`deferral-core-call ${name}\n`);
  return JSON.parse(wasm[name](...args));
}

/** Validates receipt bytes (Buffer or string). Answers {ok, receipt} or {ok:false, error}. */
export function validateReceipt(input) {
  return cross('validate_receipt', typeof input === 'string' ? Buffer.from(input, 'utf8') : input);
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

/** validate, explain or digest, whole: answers {exit, line, text}. */
export function runCommand(name, bytes, kind = '') {
  return cross('command', name, bytes, Date.now(), -new Date().getTimezoneOffset(), kind);
}
