// Bundled by scripts/build-dist.sh from library/: edit those.
var __defProp = Object.defineProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// shared/builtin.js
import { createRequire } from "node:module";
var builtin = process.getBuiltinModule ?? createRequire(import.meta.url);

// dist/wasm/deferral_wasm.js
var deferral_wasm_exports = {};
__export(deferral_wasm_exports, {
  decide: () => decide,
  default: () => __wbg_init,
  digest: () => digest,
  initSync: () => initSync,
  input_buffer: () => input_buffer,
  library: () => library,
  lifecycle_transition: () => lifecycle_transition,
  parse_rate_limit: () => parse_rate_limit,
  proxy_for: () => proxy_for,
  run: () => run,
  validate_input: () => validate_input
});
function decide(input2) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.decide(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function digest(kind, text) {
  let deferred3_0;
  let deferred3_1;
  try {
    let ptr0, len0, ptr1, len1;
    try {
      ptr0 = passStringToWasm0(kind, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
      len0 = WASM_VECTOR_LEN;
      ptr1 = passStringToWasm0(text, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
      len1 = WASM_VECTOR_LEN;
    } catch (e) {
      if (ptr1) {
        wasm.__wbindgen_free(ptr1, len1 * 1, 1);
      }
      if (ptr0) {
        wasm.__wbindgen_free(ptr0, len0 * 1, 1);
      }
      throw e;
    }
    const ret = wasm.digest(ptr0, len0, ptr1, len1);
    deferred3_0 = ret[0];
    deferred3_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred3_0, deferred3_1, 1);
  }
}
function input_buffer(len) {
  const ret = wasm.input_buffer(len);
  return ret >>> 0;
}
function library(input2) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.library(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function lifecycle_transition(input2) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.lifecycle_transition(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function parse_rate_limit(input2) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.parse_rate_limit(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function proxy_for(input2) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.proxy_for(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function run(input2, files) {
  let deferred3_0;
  let deferred3_1;
  try {
    let ptr0, len0, ptr1, len1;
    try {
      ptr0 = passStringToWasm0(input2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
      len0 = WASM_VECTOR_LEN;
      ptr1 = passArray8ToWasm0(files, wasm.__wbindgen_malloc);
      len1 = WASM_VECTOR_LEN;
    } catch (e) {
      if (ptr1) {
        wasm.__wbindgen_free(ptr1, len1 * 1, 1);
      }
      if (ptr0) {
        wasm.__wbindgen_free(ptr0, len0 * 1, 1);
      }
      throw e;
    }
    const ret = wasm.run(ptr0, len0, ptr1, len1);
    deferred3_0 = ret[0];
    deferred3_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred3_0, deferred3_1, 1);
  }
}
function validate_input(len) {
  const ret = wasm.validate_input(len);
  return ret >>> 0;
}
function __wbg_get_imports() {
  const import0 = {
    __proto__: null,
    __wbindgen_init_externref_table: function() {
      const table = wasm.__wbindgen_externrefs;
      table.set(0, void 0);
      table.set(1024, void 0);
      table.set(1025, null);
      table.set(1026, true);
      table.set(1027, false);
    }
  };
  return {
    __proto__: null,
    "./deferral_wasm_bg.js": import0
  };
}
function getStringFromWasm0(ptr, len) {
  ptr = ptr >>> 0;
  return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}
var cachedUint8ArrayMemory0 = null;
function getUint8ArrayMemory0() {
  if (cachedUint8ArrayMemory0 === null || cachedUint8ArrayMemory0.byteLength === 0) {
    cachedUint8ArrayMemory0 = new Uint8Array(wasm.memory.buffer);
  }
  return cachedUint8ArrayMemory0;
}
function passArray8ToWasm0(arg, malloc) {
  const ptr = malloc(arg.length * 1, 1) >>> 0;
  getUint8ArrayMemory0().set(arg, ptr / 1);
  WASM_VECTOR_LEN = arg.length;
  return ptr;
}
function passStringToWasm0(arg, malloc, realloc) {
  if (realloc === void 0) {
    const buf = cachedTextEncoder.encode(arg);
    const ptr2 = malloc(buf.length, 1) >>> 0;
    getUint8ArrayMemory0().subarray(ptr2, ptr2 + buf.length).set(buf);
    WASM_VECTOR_LEN = buf.length;
    return ptr2;
  }
  let len = arg.length;
  let ptr = malloc(len, 1) >>> 0;
  const mem = getUint8ArrayMemory0();
  let offset = 0;
  for (; offset < len; offset++) {
    const code = arg.charCodeAt(offset);
    if (code > 127) break;
    mem[ptr + offset] = code;
  }
  if (offset !== len) {
    if (offset !== 0) {
      arg = arg.slice(offset);
    }
    ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
    const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
    const ret = cachedTextEncoder.encodeInto(arg, view);
    offset += ret.written;
    ptr = realloc(ptr, len, offset, 1) >>> 0;
  }
  WASM_VECTOR_LEN = offset;
  return ptr;
}
var cachedTextDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
cachedTextDecoder.decode();
var MAX_SAFARI_DECODE_BYTES = 2146435072;
var numBytesDecoded = 0;
function decodeText(bytes2) {
  numBytesDecoded += bytes2.length;
  if (numBytesDecoded >= MAX_SAFARI_DECODE_BYTES) {
    cachedTextDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
    cachedTextDecoder.decode();
    numBytesDecoded = bytes2.length;
  }
  return cachedTextDecoder.decode(bytes2);
}
var cachedTextEncoder = new TextEncoder();
if (!("encodeInto" in cachedTextEncoder)) {
  cachedTextEncoder.encodeInto = function(arg, view) {
    const buf = cachedTextEncoder.encode(arg);
    view.set(buf);
    return {
      read: arg.length,
      written: buf.length
    };
  };
}
var WASM_VECTOR_LEN = 0;
var wasmModule;
var wasmInstance;
var wasm;
function __wbg_finalize_init(instance, module) {
  wasmInstance = instance;
  wasm = instance.exports;
  wasmModule = module;
  cachedUint8ArrayMemory0 = null;
  wasm.__wbindgen_start();
  return wasm;
}
async function __wbg_load(module, imports) {
  if (typeof Response === "function" && module instanceof Response) {
    if (!module.ok) {
      throw new Error(`failed to fetch Wasm: ${module.status} ${module.statusText} fetching '${module.url}'`);
    }
    if (typeof WebAssembly.instantiateStreaming === "function") {
      try {
        return await WebAssembly.instantiateStreaming(module, imports);
      } catch (e) {
        const validResponse = expectedResponseType(module.type);
        if (validResponse && module.headers.get("Content-Type") !== "application/wasm") {
          console.warn("`WebAssembly.instantiateStreaming` failed because your server does not serve Wasm with `application/wasm` MIME type. Falling back to `WebAssembly.instantiate` which is slower. Original error:\n", e);
        } else {
          throw e;
        }
      }
    }
    const bytes2 = await module.arrayBuffer();
    return await WebAssembly.instantiate(bytes2, imports);
  } else {
    const instance = await WebAssembly.instantiate(module, imports);
    if (instance instanceof WebAssembly.Instance) {
      return { instance, module };
    } else {
      return instance;
    }
  }
  function expectedResponseType(type) {
    switch (type) {
      case "basic":
      case "cors":
      case "default":
        return true;
    }
    return false;
  }
}
function initSync(module) {
  if (wasm !== void 0) return wasm;
  if (module !== void 0) {
    if (Object.getPrototypeOf(module) === Object.prototype) {
      ({ module } = module);
    } else {
      console.warn("using deprecated parameters for `initSync()`; pass a single object instead");
    }
  }
  const imports = __wbg_get_imports();
  if (!(module instanceof WebAssembly.Module)) {
    module = new WebAssembly.Module(module);
  }
  const instance = new WebAssembly.Instance(module, imports);
  return __wbg_finalize_init(instance, module);
}
var __wbg_init_promise;
async function __wbg_init(module_or_path) {
  if (wasm !== void 0) return wasm;
  if (__wbg_init_promise === void 0) {
    __wbg_init_promise = __wbg_init_once(module_or_path);
    __wbg_init_promise.catch(() => {
      __wbg_init_promise = void 0;
    });
  }
  return __wbg_init_promise;
}
async function __wbg_init_once(module_or_path) {
  if (module_or_path !== void 0) {
    if (Object.getPrototypeOf(module_or_path) === Object.prototype) {
      ({ module_or_path } = module_or_path);
    } else {
      console.warn("using deprecated parameters for the initialization function; pass a single object instead");
    }
  }
  if (module_or_path === void 0) {
    module_or_path = new URL("deferral_wasm_bg.wasm", import.meta.url);
  }
  const imports = __wbg_get_imports();
  if (typeof module_or_path === "string" || typeof Request === "function" && module_or_path instanceof Request || typeof URL === "function" && module_or_path instanceof URL) {
    module_or_path = fetch(module_or_path);
  }
  const { instance, module } = await __wbg_load(await module_or_path, imports);
  return __wbg_finalize_init(instance, module);
}

// shared/wasm.js
var { readFileSync } = builtin("node:fs");
var { inflateRawSync } = builtin("node:zlib");
var WASM_DIR = false ? "../wasm/" : "../wasm/";
var bytes = inflateRawSync(readFileSync(new URL(`${WASM_DIR}deferral_wasm_bg.wasm.deflate`, import.meta.url)), { chunkSize: 1 << 20 });
var { memory } = initSync({ module: bytes });
var trace = process.env.DEFERRAL_TRACE_CORE === "1";
function cross(name, ...args) {
  if (trace) process.stderr.write(`deferral-core-call ${name}
`);
  return JSON.parse(deferral_wasm_exports[name](...args));
}
var encoder = new TextEncoder();
var READ_LIMIT = 16 * 1024 + 1;
var INPUT_ROOM = READ_LIMIT * 3;
var inputAt = -1;
var input = new Uint8Array(0);
var heap = input;
var words = new Uint32Array(0);
function refreshViews() {
  if (inputAt < 0) inputAt = input_buffer(INPUT_ROOM);
  input = new Uint8Array(memory.buffer, inputAt, INPUT_ROOM);
  heap = Buffer.from(memory.buffer);
  words = new Uint32Array(memory.buffer);
}
function place(receipt) {
  if (input.length === 0) refreshViews();
  if (typeof receipt === "string") {
    const text = receipt.length > READ_LIMIT ? receipt.slice(0, READ_LIMIT) : receipt;
    return encoder.encodeInto(text, input).written;
  }
  const bytes2 = receipt.length > READ_LIMIT ? receipt.subarray(0, READ_LIMIT) : receipt;
  input.set(bytes2);
  return bytes2.length;
}
function refusal(at) {
  if (heap.length === 0) refreshViews();
  const word = at >>> 2;
  const code = words[word];
  const path = code + words[word + 1];
  const message = path + words[word + 2];
  const end = message + words[word + 3];
  return { code: heap.toString("utf8", code, path), path: heap.toString("utf8", path, message), message: heap.toString("utf8", message, end) };
}
function validateReceipt(receipt) {
  const parsed = receipt !== null && typeof receipt === "object" && !ArrayBuffer.isView(receipt);
  const text = parsed ? JSON.stringify(receipt) : receipt;
  if (trace) process.stderr.write("deferral-core-call validate_receipt\n");
  const refused = validate_input(place(text));
  if (refused !== 0) return { ok: false, error: refusal(refused) };
  let value;
  return {
    ok: true,
    get receipt() {
      return value ??= JSON.parse(typeof text === "string" ? text : Buffer.from(text).toString("utf8"));
    }
  };
}
function digest2(kind, text) {
  return cross("digest", kind, text);
}
function lifecycleTransition(input2) {
  return cross("lifecycle_transition", JSON.stringify(input2));
}
function call(name, input2) {
  if (typeof deferral_wasm_exports[name] !== "function") throw new Error(`the wasm core has no function ${name}`);
  return cross(name, typeof input2 === "string" ? input2 : JSON.stringify(input2));
}

// library/ask.js
var PortError = class extends Error {
  constructor(status, code, message, path) {
    super(message);
    this.name = "PortError";
    this.status = status;
    this.code = code;
    if (path) this.path = path;
  }
};
function failure({ class: name, message, props }) {
  if (name === PortError.name) return new PortError(props.status, props.code, message, props.path);
  return Object.assign(new TypeError(message), props);
}
function ask(op, facts = {}) {
  const answer = call("library", { op, ...facts });
  if (!answer.ok) throw failure(answer.error);
  return answer;
}
function encode(value) {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString("utf8");
  const dropped = [];
  const note = (key, v) => {
    const kind = typeof v;
    if (kind !== "undefined" && kind !== "function" && kind !== "symbol") return v;
    dropped.push([key, kind]);
    return void 0;
  };
  try {
    return { text: JSON.stringify(value, note) ?? null, dropped };
  } catch (err) {
    return { text: null, dropped, why: err.message };
  }
}
var receiptOf = (answer) => JSON.parse(answer.receipt);

// library/receipt-api.js
var titles = ask("titles");
var INVALID_RECEIPT = titles.invalid_receipt;
var INVALID_TRANSITION = titles.invalid_transition;
function validateReceipt2(value) {
  const input2 = value instanceof Uint8Array ? value : encode(value);
  if (typeof input2 === "string" || input2 instanceof Uint8Array) return validateReceipt(input2);
  if (input2.text !== null && input2.dropped.length === 0) return validateReceipt(input2.text);
  try {
    return { ok: true, receipt: receiptOf(ask("parse", { receipt: input2 })) };
  } catch (err) {
    return { ok: false, error: { code: err.code, path: err.path, message: err.detail } };
  }
}
function parseDeferredReceiptV1(value) {
  const checked = validateReceipt2(value);
  if (checked.ok) return checked.receipt;
  return receiptOf(ask("parse", { receipt: encode(value) }));
}
function createGovernedHandoffReceipt(input2) {
  return receiptOf(ask("handoff", { input: encode(input2) }));
}
function receiptDigest(receipt) {
  return digest2("value", JSON.stringify(parseDeferredReceiptV1(receipt))).digest;
}

export {
  builtin,
  lifecycleTransition,
  call,
  PortError,
  ask,
  encode,
  receiptOf,
  INVALID_RECEIPT,
  INVALID_TRANSITION,
  validateReceipt2 as validateReceipt,
  parseDeferredReceiptV1,
  createGovernedHandoffReceipt,
  receiptDigest
};
