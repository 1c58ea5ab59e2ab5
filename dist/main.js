// Bundled by scripts/build-dist.sh from action/main.js and what it imports: edit those.
var __defProp = Object.defineProperty;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __esm = (fn, res, err) => function __init() {
  if (err) throw err[0];
  try {
    return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
  } catch (e) {
    throw err = [e], e;
  }
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// dist/lib/builtin.js
import { createRequire } from "node:module";
var builtin;
var init_builtin = __esm({
  "dist/lib/builtin.js"() {
    builtin = process.getBuiltinModule ?? createRequire(import.meta.url);
  }
});

// dist/wasm/deferral_wasm.js
var deferral_wasm_exports = {};
__export(deferral_wasm_exports, {
  classify_response: () => classify_response,
  decide: () => decide,
  default: () => __wbg_init,
  digest: () => digest,
  graphql_cost: () => graphql_cost,
  initSync: () => initSync,
  lifecycle_transition: () => lifecycle_transition,
  merge_ledger: () => merge_ledger,
  observe_response: () => observe_response,
  parse_rate_limit: () => parse_rate_limit,
  plan_cost: () => plan_cost,
  preflight: () => preflight,
  read_ledger: () => read_ledger,
  read_rate_state: () => read_rate_state,
  validate_receipt: () => validate_receipt,
  version: () => version
});
function classify_response(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.classify_response(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function decide(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.decide(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function digest(kind, text2) {
  let deferred3_0;
  let deferred3_1;
  try {
    let ptr0, len0, ptr1, len1;
    try {
      ptr0 = passStringToWasm0(kind, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
      len0 = WASM_VECTOR_LEN;
      ptr1 = passStringToWasm0(text2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
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
function graphql_cost(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.graphql_cost(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function lifecycle_transition(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.lifecycle_transition(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function merge_ledger(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.merge_ledger(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function observe_response(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.observe_response(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function parse_rate_limit(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.parse_rate_limit(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function plan_cost(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.plan_cost(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function preflight(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.preflight(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function read_ledger(text2) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(text2, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.read_ledger(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function read_rate_state(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.read_rate_state(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function validate_receipt(bytes2) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passArray8ToWasm0(bytes2, wasm.__wbindgen_malloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.validate_receipt(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
function version() {
  let deferred1_0;
  let deferred1_1;
  try {
    const ret = wasm.version();
    deferred1_0 = ret[0];
    deferred1_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
  }
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
function decodeText(bytes2) {
  numBytesDecoded += bytes2.length;
  if (numBytesDecoded >= MAX_SAFARI_DECODE_BYTES) {
    cachedTextDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
    cachedTextDecoder.decode();
    numBytesDecoded = bytes2.length;
  }
  return cachedTextDecoder.decode(bytes2);
}
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
var cachedUint8ArrayMemory0, cachedTextDecoder, MAX_SAFARI_DECODE_BYTES, numBytesDecoded, cachedTextEncoder, WASM_VECTOR_LEN, wasmModule, wasmInstance, wasm, __wbg_init_promise;
var init_deferral_wasm = __esm({
  "dist/wasm/deferral_wasm.js"() {
    cachedUint8ArrayMemory0 = null;
    cachedTextDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
    cachedTextDecoder.decode();
    MAX_SAFARI_DECODE_BYTES = 2146435072;
    numBytesDecoded = 0;
    cachedTextEncoder = new TextEncoder();
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
    WASM_VECTOR_LEN = 0;
  }
});

// dist/lib/core.js
function validateReceipt(input) {
  const data = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  return parse(validate_receipt(data));
}
function digest2(kind, text2) {
  return parse(digest(kind, text2));
}
function lifecycleTransition(input) {
  return parse(lifecycle_transition(JSON.stringify(input)));
}
function call(name, input) {
  const fn = deferral_wasm_exports[name];
  if (typeof fn !== "function") throw new Error(`the wasm core has no function ${name}`);
  return parse(fn(typeof input === "string" ? input : JSON.stringify(input)));
}
var readFileSync, brotliDecompressSync, WASM_DIR, bytes, parse, coreVersion;
var init_core = __esm({
  "dist/lib/core.js"() {
    init_builtin();
    init_deferral_wasm();
    ({ readFileSync } = builtin("node:fs"));
    ({ brotliDecompressSync } = builtin("node:zlib"));
    WASM_DIR = false ? "../wasm/" : "./wasm/";
    bytes = brotliDecompressSync(readFileSync(new URL(`${WASM_DIR}deferral_wasm_bg.wasm.br`, import.meta.url)));
    initSync({ module: bytes });
    parse = (text2) => JSON.parse(text2);
    coreVersion = version();
  }
});

// dist/lib/exit-codes.js
var EXIT, CommandError;
var init_exit_codes = __esm({
  "dist/lib/exit-codes.js"() {
    EXIT = Object.freeze({
      ok: 0,
      // ready or complete
      invalid: 2,
      // invalid input, including an invalid receipt
      auth: 3,
      // authentication or authorization
      provider: 4,
      // provider or transport failure
      blocked: 5,
      deferred: 6
    });
    CommandError = class extends Error {
      constructor(exit, code, message, path) {
        super(message);
        this.exit = exit;
        this.code = code;
        this.path = path;
      }
    };
  }
});

// dist/lib/read-input.js
function readUpTo(path, limit) {
  const fd = path === "-" ? 0 : openSync(path, "r");
  const buffer = Buffer.allocUnsafe(limit + 1);
  let size = 0;
  try {
    while (size < buffer.length) {
      let n;
      try {
        n = readSync(fd, buffer, size, buffer.length - size, null);
      } catch (err) {
        if (err.code === "EAGAIN") continue;
        if (err.code === "EOF") break;
        throw err;
      }
      if (n === 0) break;
      size += n;
    }
  } finally {
    if (fd !== 0) closeSync(fd);
  }
  return buffer.subarray(0, size);
}
function readBounded(path, what, { limit = MAX_INPUT_BYTES, allowOver = false } = {}) {
  if (!path) throw new CommandError(EXIT.invalid, "missing-argument", `give the ${what} as a file path, or - for standard input`);
  let bytes2;
  try {
    bytes2 = readUpTo(path, limit);
  } catch (err) {
    throw new CommandError(EXIT.invalid, "unreadable-file", `cannot read ${where(path)}: ${err.code ?? err.message}`);
  }
  if (bytes2.length > limit && !allowOver) {
    throw new CommandError(EXIT.invalid, "too-large", `the ${what} in ${where(path)} is larger than ${limit} bytes`);
  }
  return bytes2;
}
var openSync, readSync, closeSync, MAX_INPUT_BYTES, RECEIPT_READ_BYTES, where;
var init_read_input = __esm({
  "dist/lib/read-input.js"() {
    init_builtin();
    init_exit_codes();
    ({ openSync, readSync, closeSync } = builtin("node:fs"));
    MAX_INPUT_BYTES = 1 << 20;
    RECEIPT_READ_BYTES = 16 * 1024 + 1;
    where = (path) => path === "-" ? "standard input" : path;
  }
});

// dist/lib/ledger-file.js
var ledger_file_exports = {};
__export(ledger_file_exports, {
  readLedger: () => readLedger,
  updateLedger: () => updateLedger
});
function readText(path) {
  try {
    return readFileSync2(path, "utf8");
  } catch (err) {
    if (err.code === "ENOENT") return null;
    throw new CommandError(EXIT.invalid, "unreadable-ledger", `cannot read the ledger file: ${err.code ?? err.message}`);
  }
}
function parseLedger(text2) {
  if (text2 === null || text2.trim() === "") return null;
  const checked = call("read_ledger", text2);
  if (!checked.ok) throw new CommandError(EXIT.invalid, checked.error.code, checked.error.message);
  return checked.ledger;
}
function readLedger(path) {
  let size = 0;
  try {
    size = statSync(path).size;
  } catch {
  }
  if (size > MAX_INPUT_BYTES) throw new CommandError(EXIT.invalid, "too-large", `the ledger file is larger than ${MAX_INPUT_BYTES} bytes`);
  return parseLedger(readText(path));
}
function ownerAlive(content) {
  const [host, pid] = content.split(" ");
  if (host !== hostname()) return true;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (err) {
    return err.code === "EPERM";
  }
}
function breakStaleLock(lockPath, seen) {
  const aside = `${lockPath}.stale-${randomBytes(6).toString("hex")}`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return;
  }
  const moved = readText(aside);
  if (moved !== seen) {
    try {
      linkSync(aside, lockPath);
    } catch {
    }
  }
  try {
    unlinkSync(aside);
  } catch {
  }
}
function acquire(lockPath) {
  const token = `${hostname()} ${process.pid} ${randomBytes(8).toString("hex")}`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync2(lockPath, "wx", 384);
      writeSync(fd, token);
      closeSync2(fd);
      return token;
    } catch (err) {
      if (err.code !== "EEXIST") throw new CommandError(EXIT.invalid, "ledger-lock-failed", `cannot create the ledger lock: ${err.code}`);
    }
    const seen = readText(lockPath);
    let age = 0;
    try {
      age = Date.now() - statSync(lockPath).mtimeMs;
    } catch {
      continue;
    }
    if (seen !== null && seen !== "" && (!ownerAlive(seen) || age > STALE_LOCK_MS)) {
      breakStaleLock(lockPath, seen);
      continue;
    }
    if (Date.now() > deadline) {
      throw new CommandError(EXIT.provider, "ledger-lock-timeout", `the ledger lock stayed held for ${LOCK_WAIT_MS} ms`);
    }
    sleepMs(Math.min(50, 2 + attempt));
  }
}
function release(lockPath, token) {
  if (readText(lockPath) === token) {
    try {
      unlinkSync(lockPath);
    } catch {
    }
  }
}
function writeAtomically(path, text2) {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync2(temp, "wx", 420);
  try {
    writeSync(fd, text2);
    fsyncSync(fd);
  } finally {
    closeSync2(fd);
  }
  renameSync(temp, path);
}
function updateLedger(path, { observations = [], ledger = null, nowMs = Date.now(), apply } = {}) {
  const lockPath = `${path}.lock`;
  const token = acquire(lockPath);
  try {
    const current = readLedger(path);
    const merged = apply ? { ok: true, ledger: apply(current) } : call("merge_ledger", { ledgers: [current, ledger].filter(Boolean), observations, now_ms: nowMs });
    if (!merged.ok) throw new CommandError(EXIT.invalid, merged.error.code, merged.error.message, merged.error.path);
    writeAtomically(path, `${JSON.stringify(merged.ledger)}
`);
    return merged.ledger;
  } finally {
    release(lockPath, token);
  }
}
var closeSync2, fsyncSync, openSync2, readFileSync2, renameSync, statSync, unlinkSync, writeSync, linkSync, randomBytes, hostname, LOCK_WAIT_MS, STALE_LOCK_MS, pause, sleepMs;
var init_ledger_file = __esm({
  "dist/lib/ledger-file.js"() {
    init_builtin();
    init_core();
    init_exit_codes();
    init_read_input();
    ({ closeSync: closeSync2, fsyncSync, openSync: openSync2, readFileSync: readFileSync2, renameSync, statSync, unlinkSync, writeSync, linkSync } = builtin("node:fs"));
    ({ randomBytes } = builtin("node:crypto"));
    ({ hostname } = builtin("node:os"));
    LOCK_WAIT_MS = 1e4;
    STALE_LOCK_MS = 3e4;
    pause = new Int32Array(new SharedArrayBuffer(4));
    sleepMs = (ms) => Atomics.wait(pause, 0, 0, ms);
  }
});

// dist/run.js
init_builtin();

// dist/lib/inputs.js
var inputVariable = (name) => `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
function getInput(name, env2 = process.env) {
  const value = env2[inputVariable(name)];
  if (value === void 0) return void 0;
  const trimmed = value.trim();
  return trimmed === "" ? void 0 : trimmed;
}
function readActionInputs(env2 = process.env) {
  const input = (name) => getInput(name, env2);
  return {
    token: input("token"),
    restReserve: input("rest-reserve"),
    graphqlReserve: input("graphql-reserve"),
    plan: input("plan"),
    scope: input("scope"),
    request: input("request"),
    receipt: input("receipt"),
    resumeBuffer: input("resume-buffer"),
    resumeWindow: input("resume-window"),
    resumeJitter: input("resume-jitter"),
    freshApproval: input("fresh-approval"),
    approval: input("approval"),
    onDeferral: input("on-deferral"),
    ledgerFile: input("ledger-file"),
    coordinatorUrl: input("coordinator-url"),
    coordinatorToken: input("coordinator-token"),
    coordinatorLaunch: input("coordinator-launch")
  };
}

// dist/lib/gate-options.js
init_core();
init_read_input();

// dist/lib/duration.js
var UNIT_MS = { ms: 1, s: 1e3, m: 6e4, h: 36e5 };
function parseDuration(text2) {
  const match = /^(\d{1,9})\s*(ms|s|m|h)?$/i.exec(String(text2).trim());
  if (!match) return void 0;
  return Number(match[1]) * UNIT_MS[(match[2] ?? "s").toLowerCase()];
}

// dist/lib/gate-options.js
init_exit_codes();
var DEFAULTS = Object.freeze({
  restReserve: "10%",
  graphqlReserve: "10%",
  resumeBuffer: "60s",
  resumeWindow: "6h",
  resumeJitter: "30s",
  freshApproval: "always",
  onDeferral: "fail"
});
var invalid = (code, message) => new CommandError(EXIT.invalid, code, message);
function defaultScope(env2 = process.env) {
  return {
    api: (env2.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, ""),
    repository: env2.GITHUB_REPOSITORY || null,
    workflow: env2.GITHUB_WORKFLOW_REF || null,
    job: env2.GITHUB_JOB || null
  };
}
function inlineOrFile(text2, what) {
  if (text2.trimStart().startsWith("{")) return text2;
  return readBounded(text2, `${what} file`).toString("utf8");
}
function canonical(kind, text2) {
  const result = digest2(kind, text2);
  if (!result.ok) throw invalid(`invalid-${kind}`, `the ${kind} is not valid: ${result.error.message}`);
  return result.canonical;
}
function duration(text2, name) {
  const ms = parseDuration(text2);
  if (ms === void 0) throw invalid("invalid-duration", `${name} must be a duration like 60, 90s, 15m or 6h`);
  return ms;
}
function oneOf(value, allowed, name) {
  const v = value.toLowerCase();
  if (!allowed.includes(v)) throw invalid(`invalid-${name}`, `${name} must be ${allowed.join(" or ")}`);
  return v;
}
function buildGateOptions(raw, env2 = process.env) {
  const policy = {
    rest_reserve: raw.restReserve ?? DEFAULTS.restReserve,
    graphql_reserve: raw.graphqlReserve ?? DEFAULTS.graphqlReserve,
    resume_buffer_ms: duration(raw.resumeBuffer ?? DEFAULTS.resumeBuffer, "resume-buffer"),
    resume_window_ms: duration(raw.resumeWindow ?? DEFAULTS.resumeWindow, "resume-window"),
    // Not bound into request_digest: spreading wake-ups must not change what the work is.
    jitter_max_ms: duration(raw.resumeJitter ?? DEFAULTS.resumeJitter, "resume-jitter")
  };
  const scopeText = raw.scope ?? JSON.stringify(defaultScope(env2));
  const approval = raw.approval === void 0 ? "" : oneOf(raw.approval, ["granted", "none"], "approval");
  return {
    policy,
    scopeJson: canonical("scope", scopeText),
    requestJson: raw.request === void 0 ? null : canonical("request", raw.request),
    planJson: raw.plan === void 0 ? null : canonical("plan", inlineOrFile(raw.plan, "plan")),
    freshApprovalRequired: oneOf(raw.freshApproval ?? DEFAULTS.freshApproval, ["always", "never"], "fresh-approval") === "always",
    approvalGranted: approval === "granted",
    onDeferral: oneOf(raw.onDeferral ?? DEFAULTS.onDeferral, ["fail", "succeed"], "on-deferral")
  };
}
function decisionInputJson(options, { rate, ledger, nowMs, clockOffsetMs }) {
  const plain = JSON.stringify({
    rate,
    ledger: ledger ?? null,
    policy: options.policy,
    fresh_approval_required: options.freshApprovalRequired,
    now_ms: nowMs,
    clock_offset_ms: clockOffsetMs ?? null
  });
  return `${plain.slice(0, -1)},"scope":${options.scopeJson},"request":${options.requestJson ?? "null"},"plan":${options.planJson ?? "null"}}`;
}

// dist/lib/attempt.js
init_core();

// dist/lib/rate-state.js
init_builtin();
init_core();

// dist/lib/http.js
init_builtin();

// dist/lib/proxy-env.js
function env(vars, name) {
  const value = vars[name.toLowerCase()] ?? vars[name.toUpperCase()];
  return value && value.trim() !== "" ? value.trim() : void 0;
}
function bypassesProxy(url, vars) {
  const list = env(vars, "no_proxy");
  if (!list) return false;
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return list.split(/[\s,]+/).filter(Boolean).some((entry) => {
    if (entry === "*") return true;
    let [name, entryPort] = [entry.toLowerCase(), void 0];
    const colon = name.lastIndexOf(":");
    if (colon > -1 && !name.includes("]") && /^\d+$/.test(name.slice(colon + 1)) && name.indexOf(":") === colon) {
      [name, entryPort] = [name.slice(0, colon), name.slice(colon + 1)];
    }
    name = name.replace(/^\[|\]$/g, "").replace(/^\*?\./, "");
    if (entryPort && entryPort !== port) return false;
    return host === name || host.endsWith(`.${name}`);
  });
}
function proxyFor(url, vars = process.env) {
  if (bypassesProxy(url, vars)) return void 0;
  const raw = url.protocol === "https:" ? env(vars, "https_proxy") : env(vars, "http_proxy");
  if (!raw) return void 0;
  const proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  if (proxy.protocol !== "http:" && proxy.protocol !== "https:") {
    throw Object.assign(new Error(`unsupported proxy scheme ${proxy.protocol} (use http:// or https://)`), { code: "EPROXYSCHEME" });
  }
  return proxy;
}

// dist/lib/http.js
var http = builtin("node:http");
var secure;
var loadTls = () => secure ??= { https: builtin("node:https"), tls: builtin("node:tls") };
var DEFAULT_TIMEOUT_MS = 15e3;
var MAX_BODY_BYTES = 1 << 20;
var TransportError = class extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
};
var transportError = (err, what) => err instanceof TransportError ? err : new TransportError(err.code ?? "EIO", `${what}: ${err.code ?? err.message}`);
function proxyAuthorization(proxy) {
  if (!proxy.username && !proxy.password) return {};
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  return { "proxy-authorization": `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}` };
}
var defaultPort = (url) => Number(url.port || (url.protocol === "https:" ? 443 : 80));
function tunnel(proxy, target, signal, { https, tls }) {
  return new Promise((resolve, reject) => {
    const authority = `${target.hostname}:${defaultPort(target)}`;
    const client = proxy.protocol === "https:" ? https : http;
    const req = client.request({
      host: proxy.hostname.replace(/^\[|\]$/g, ""),
      port: defaultPort(proxy),
      method: "CONNECT",
      path: authority,
      headers: { host: authority, ...proxyAuthorization(proxy) },
      agent: false,
      signal
    });
    req.once("connect", (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        reject(new TransportError("EPROXY", `the proxy refused the tunnel: HTTP ${res.statusCode}`));
        return;
      }
      const secure2 = tls.connect({ socket, servername: target.hostname.replace(/^\[|\]$/g, "") });
      secure2.once("secureConnect", () => resolve(secure2));
      secure2.once("error", (err) => reject(transportError(err, "TLS through the proxy failed")));
    });
    req.once("error", (err) => reject(transportError(err, "cannot reach the proxy")));
    req.end();
  });
}
function send(options, client, signal, body) {
  return new Promise((resolve, reject) => {
    const req = client.request({ ...options, signal }, (res) => {
      const chunks = [];
      let size = 0;
      res.on("data", (chunk) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          req.destroy(new TransportError("ETOOBIG", "the response body is larger than 1 MiB"));
          return;
        }
        chunks.push(chunk);
      });
      res.once("end", () => {
        const pairs = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
        resolve({ status: res.statusCode, headers: pairs, body: Buffer.concat(chunks).toString("utf8") });
      });
      res.once("error", (err) => reject(transportError(err, "the response broke off")));
    });
    req.once("error", (err) => reject(transportError(err, "the request failed")));
    req.end(body);
  });
}
async function request(href, { method = "GET", headers = {}, body, timeoutMs = DEFAULT_TIMEOUT_MS, env: env2 = process.env } = {}) {
  const url = new URL(href);
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TransportError("EURL", `unsupported URL scheme ${url.protocol}`);
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const path = `${url.pathname}${url.search}`;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  try {
    const proxy = proxyFor(url, env2);
    const lib = url.protocol === "https:" || proxy?.protocol === "https:" ? loadTls() : null;
    if (!proxy) {
      return await send({ host, port: defaultPort(url), path, method, headers, agent: false }, lib ? lib.https : http, controller.signal, body);
    }
    if (url.protocol === "https:") {
      const socket = await tunnel(proxy, url, controller.signal, lib);
      return await send({ host, port: defaultPort(url), path, method, headers, servername: host, createConnection: () => socket }, lib.https, controller.signal, body);
    }
    return await send({
      host: proxy.hostname.replace(/^\[|\]$/g, ""),
      port: defaultPort(proxy),
      path: url.href,
      method,
      headers: { host: url.host, ...headers, ...proxyAuthorization(proxy) },
      agent: false
    }, proxy.protocol === "https:" ? lib.https : http, controller.signal, body);
  } catch (err) {
    if (controller.signal.aborted) throw new TransportError("ETIMEDOUT", `no answer within ${timeoutMs} ms`);
    throw transportError(err, "the request failed");
  } finally {
    clearTimeout(timer);
  }
}

// dist/lib/rate-state.js
init_exit_codes();
init_read_input();
var API_VERSION = "2022-11-28";
function apiBase(env2 = process.env) {
  return (env2.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, "");
}
function fromCore(answer, source) {
  if (!answer.ok) throw new CommandError(answer.exit ?? EXIT.provider, answer.error.code, answer.error.message, answer.error.path);
  return {
    source,
    snapshot: answer.snapshot,
    observations: answer.observations,
    clockOffsetMs: answer.clock_offset_ms,
    secondary: answer.secondary ? { retryAfterS: answer.secondary.retry_after_s } : null
  };
}
async function fetchRateState({ token, env: env2 = process.env, nowMs = () => Date.now(), timeoutMs }) {
  const headers = {
    accept: "application/vnd.github+json",
    "user-agent": "deferral",
    "x-github-api-version": API_VERSION
  };
  if (token) headers.authorization = `Bearer ${token}`;
  let res;
  try {
    res = await request(`${apiBase(env2)}/rate_limit`, { headers, env: env2, timeoutMs });
  } catch (err) {
    throw new CommandError(EXIT.provider, "transport-error", `cannot reach the GitHub API: ${err.message}`);
  }
  return fromCore(call("read_rate_state", { source: "live", ...res, now_ms: nowMs() }), "live");
}
function readRateStateFile(path, nowMs = Date.now()) {
  const text2 = readBounded(path, "rate state").toString("utf8");
  return fromCore(call("read_rate_state", { source: "file", text: text2, now_ms: nowMs }), "file");
}

// dist/lib/attempt.js
init_exit_codes();
var OFFLINE_STOPS = /* @__PURE__ */ new Set(["invalid-receipt", "not-yet-due", "expired", "claim-unavailable", "binding-mismatch", "approval-required"]);
var NO_RATE_STATE = Object.freeze({ unlimited: false, resources: {} });
var EXIT_FOR_STATUS = { ready: EXIT.ok, deferred: EXIT.deferred, blocked: EXIT.blocked };
var INPUT_ERRORS = /* @__PURE__ */ new Set(["invalid-input", "invalid-policy", "invalid-ledger", "invalid-plan"]);
async function gatherRate(options, source, nowMs) {
  const state = source.file !== void 0 ? readRateStateFile(source.file, nowMs()) : await fetchRateState({ token: source.token, env: source.env, nowMs, timeoutMs: source.timeoutMs });
  const at = nowMs();
  let ledger = null;
  if (options.ledgerFile) {
    const { updateLedger: updateLedger2 } = await Promise.resolve().then(() => (init_ledger_file(), ledger_file_exports));
    ledger = updateLedger2(options.ledgerFile, { observations: state.observations, nowMs: at });
  } else if (state.secondary) {
    ledger = call("merge_ledger", { ledgers: [], observations: state.observations, now_ms: at }).ledger;
  }
  const rate = state.snapshot ?? NO_RATE_STATE;
  return { state, rate, ledger, at };
}
function settle(decision, state) {
  if (state.secondary && !state.snapshot) {
    decision.diagnostics.unshift({
      code: "rate-endpoint-secondary-limit",
      message: state.secondary.retryAfterS == null ? "GET /rate_limit answered with a secondary rate limit and no retry-after" : `GET /rate_limit answered with a secondary rate limit; retry-after ${state.secondary.retryAfterS} s`
    });
  }
  return decision;
}
function fromDecision(mode, decision, extra = {}) {
  const exit = decision.status === "error" ? INPUT_ERRORS.has(decision.code) ? EXIT.invalid : EXIT.provider : EXIT_FOR_STATUS[decision.status];
  return {
    mode,
    status: decision.status,
    exit,
    code: decision.code ?? null,
    reason: decision.reason ?? null,
    decision,
    receipt: decision.receipt ?? null,
    diagnostics: decision.diagnostics ?? [],
    ...extra
  };
}
function coreAnswer(answer) {
  if (!answer.ok) throw new CommandError(EXIT.invalid, answer.error.code, answer.error.message, answer.error.path);
  return answer;
}
async function runGate(options, source, nowMs = () => Date.now()) {
  const { state, rate, ledger, at } = await gatherRate(options, source, nowMs);
  const input = decisionInputJson(options, { rate, ledger, nowMs: at, clockOffsetMs: state.clockOffsetMs });
  const { decision } = coreAnswer(call("decide", input));
  return fromDecision("gate", settle(decision, state), { source: state.source });
}
async function runResume(options, source, nowMs = () => Date.now()) {
  const checked = validateReceipt(options.receiptBytes);
  if (!checked.ok) {
    const { code, path, message } = checked.error;
    throw new CommandError(EXIT.invalid, "invalid-receipt", `the receipt is invalid: ${code} at ${path}: ${message}`, path);
  }
  const receiptText2 = options.receiptBytes.toString("utf8");
  const preflightInput = (fresh2) => {
    const head = JSON.stringify({ receipt: receiptText2, wakeup_handle: options.wakeupHandle ?? null, approval_granted: options.approvalGranted });
    return `${head.slice(0, -1)},"fresh":${fresh2}}`;
  };
  const offline = decisionInputJson(options, { rate: NO_RATE_STATE, ledger: null, nowMs: nowMs(), clockOffsetMs: null });
  const first = coreAnswer(call("preflight", preflightInput(offline))).preflight;
  if (first.status !== "ready" && first.status !== "deferred" && OFFLINE_STOPS.has(first.code)) {
    return fromPreflight(first, null, "offline");
  }
  const { state, rate, ledger, at } = await gatherRate(options, source, nowMs);
  const fresh = decisionInputJson(options, { rate, ledger, nowMs: at, clockOffsetMs: state.clockOffsetMs });
  const result = coreAnswer(call("preflight", preflightInput(fresh))).preflight;
  if (result.decision) settle(result.decision, state);
  return fromPreflight(result, state, state.source);
}
function fromPreflight(p, state, source) {
  const decision = p.decision ?? {
    status: p.status,
    code: p.code,
    reason: null,
    unlimited: false,
    rest: null,
    graphql: null,
    plan: null,
    secondary: null,
    clock_offset_ms: null,
    resume_after_ms: null,
    resume_by_ms: null,
    bindings: null,
    diagnostics: [],
    receipt: null
  };
  const result = fromDecision("resume", decision, {
    source,
    ownership: p.ownership,
    field: p.field ?? null
  });
  result.status = p.status;
  result.code = p.code ?? null;
  result.exit = p.status === "error" ? INPUT_ERRORS.has(p.code) ? EXIT.invalid : EXIT.provider : EXIT_FOR_STATUS[p.status];
  result.receipt = p.receipt ?? null;
  const own = p.diagnostics.filter((d) => !decision.diagnostics.some((e) => e.code === d.code && e.message === d.message));
  result.diagnostics = [...own, ...decision.diagnostics];
  return result;
}

// dist/run.js
init_exit_codes();

// dist/lib/runner.js
init_builtin();
var { appendFileSync } = builtin("node:fs");
var { EOL } = builtin("node:os");
function mask(secret, write = (line) => process.stdout.write(line)) {
  if (!secret) return;
  for (const part of String(secret).split(/\r?\n/)) {
    if (part.trim() !== "") write(`::add-mask::${escapeData(part)}${EOL}`);
  }
}
function escapeData(text2) {
  return String(text2).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
function escapeProperty(text2) {
  return escapeData(text2).replace(/:/g, "%3A").replace(/,/g, "%2C");
}
function annotate(level, message, { title } = {}, write = (line) => process.stdout.write(line)) {
  const props = title ? ` title=${escapeProperty(title)}` : "";
  write(`::${level}${props}::${escapeData(message)}${EOL}`);
}
function delimiterFor(value) {
  for (; ; ) {
    let hex = "";
    while (hex.length < 32) hex += Math.floor(Math.random() * 4294967296).toString(16).padStart(8, "0");
    const delimiter = `ghadelimiter_${hex}`;
    if (!value.includes(delimiter)) return delimiter;
  }
}
function outputRecord(name, value) {
  if (/[\r\n]|<</.test(name)) throw new Error(`invalid output name ${JSON.stringify(name)}`);
  const text2 = value === void 0 || value === null ? "" : String(value);
  const delimiter = delimiterFor(text2);
  return `${name}<<${delimiter}${EOL}${text2}${EOL}${delimiter}${EOL}`;
}
function setOutputs(outputs, env2 = process.env) {
  const file = env2.GITHUB_OUTPUT;
  const text2 = Object.entries(outputs).map(([name, value]) => outputRecord(name, value)).join("");
  if (file) {
    appendFileSync(file, text2, { encoding: "utf8" });
  } else {
    for (const [name, value] of Object.entries(outputs)) process.stdout.write(`${name}=${escapeData(value ?? "")}${EOL}`);
  }
}
function appendSummary(markdown, env2 = process.env) {
  if (env2.GITHUB_STEP_SUMMARY) appendFileSync(env2.GITHUB_STEP_SUMMARY, `${markdown}${EOL}`, { encoding: "utf8" });
}

// dist/lib/result-view.js
var iso = (ms) => ms == null ? null : new Date(ms).toISOString();
function figures(f) {
  if (!f) return null;
  return { limit: f.limit, remaining: f.remaining, reserve: f.reserve, plannedCost: f.planned_cost, reset: f.reset, ok: f.ok };
}
function planCost(p) {
  if (!p) return null;
  return {
    rest: p.rest,
    graphql: p.graphql,
    secondaryRestPoints: p.secondary_rest_points,
    secondaryGraphqlPoints: p.secondary_graphql_points,
    contentCreating: p.content_creating,
    secondaryMinutes: p.secondary_minutes
  };
}
function resultJson(result) {
  const d = result.decision ?? {};
  const receipt = result.receipt;
  const out = {
    status: result.status,
    mode: result.mode,
    code: result.code,
    reason: receipt?.reason ?? result.reason ?? null,
    resumeAfter: iso(receipt?.resume_after_ms ?? d.resume_after_ms),
    resumeBy: iso(receipt?.resume_by_ms ?? d.resume_by_ms),
    freshApprovalRequired: receipt ? receipt.fresh_approval_required : null,
    unlimited: d.unlimited ?? false,
    rest: figures(d.rest),
    graphql: figures(d.graphql),
    plan: planCost(d.plan),
    secondaryMinutes: d.secondary?.minutes ?? 0,
    bindings: d.bindings ?? null,
    diagnostics: result.diagnostics
  };
  if (result.mode === "resume") {
    out.ownership = result.ownership ?? null;
    if (result.field) out.field = result.field;
  }
  if (result.status === "deferred" && receipt) out.deferredReceipt = receipt;
  return out;
}
function actionOutputs(result, receiptPath) {
  const json = resultJson(result);
  const text2 = (v) => v === null || v === void 0 ? "" : String(v);
  return {
    status: json.status,
    "deferred-receipt": json.deferredReceipt ? JSON.stringify(json.deferredReceipt) : "",
    "receipt-path": receiptPath ?? "",
    reason: text2(json.reason),
    "resume-after": text2(json.status === "deferred" ? json.resumeAfter : null),
    "resume-by": text2(json.status === "deferred" ? json.resumeBy : null),
    "fresh-approval-required": text2(json.freshApprovalRequired),
    "rest-remaining": text2(json.rest?.remaining),
    "graphql-remaining": text2(json.graphql?.remaining)
  };
}
function errorOutputs() {
  return {
    status: "error",
    "deferred-receipt": "",
    "receipt-path": "",
    reason: "",
    "resume-after": "",
    "resume-by": "",
    "fresh-approval-required": "",
    "rest-remaining": "",
    "graphql-remaining": ""
  };
}

// dist/lib/summary.js
var utc = (ms) => new Date(ms).toISOString().replace("T", " ").replace(/\.\d{3}Z$/, " UTC");
var text = (v) => String(v).replace(/[\r\n]+/g, " ").replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
var cell = (v) => v === null || v === void 0 ? "\u2013" : text(v).replace(/\|/g, "\\|");
var resetCell = (seconds) => seconds == null ? "\u2013" : utc(seconds * 1e3);
var HEADLINE = {
  ready: "Ready: the planned work fits above the reserve",
  deferred: "Deferred: the work stopped before running out of quota",
  blocked: "Blocked: this work must not run as it stands",
  error: "Error: no decision was made"
};
function explainLine(view) {
  switch (view.status) {
    case "ready":
      return view.unlimited ? "Ready: the server does not enforce rate limits." : `Ready: REST ${view.rest?.remaining ?? "?"} remaining${view.graphql ? `, GraphQL ${view.graphql.remaining} remaining` : ""}.`;
    case "deferred":
      return `Deferred (${view.reason}): a fresh attempt may start at ${view.resumeAfter} and must start by ${view.resumeBy}. Nothing was changed; resume with the receipt.`;
    case "blocked": {
      const why = view.diagnostics.find((d) => d.code === view.code)?.message ?? view.code;
      return `Blocked (${view.code}): ${why}`;
    }
    default:
      return `Error (${view.code ?? "error"}): ${view.message ?? view.diagnostics?.[0]?.message ?? "no decision was made"}`;
  }
}
function summaryMarkdown(view) {
  const lines = [`### Deferral: ${HEADLINE[view.status] ?? view.status}`, ""];
  const rows = [["REST (core)", view.rest], ["GraphQL", view.graphql]].filter(([, f]) => f);
  if (view.unlimited) lines.push("The server does not enforce primary rate limits (GitHub Enterprise Server with rate limiting off).", "");
  if (rows.length > 0) {
    lines.push("| resource | limit | remaining | reserve | planned cost | reset | fits |", "|---|---:|---:|---:|---:|---|---|");
    for (const [name, f] of rows) {
      lines.push(`| ${name} | ${cell(f.limit)} | ${cell(f.remaining)} | ${cell(f.reserve)} | ${cell(f.plannedCost)} | ${resetCell(f.reset)} | ${f.ok ? "yes" : "**no**"} |`);
    }
    lines.push("");
  }
  if (view.status === "deferred") {
    lines.push(
      "| deferral | |",
      "|---|---|",
      `| reason | \`${view.reason}\` |`,
      `| resume after | ${utc(Date.parse(view.resumeAfter))} |`,
      `| resume by | ${utc(Date.parse(view.resumeBy))} |`,
      `| fresh approval required | ${view.freshApprovalRequired ? "yes" : "no"} |`,
      ...view.deferralId ? [`| durable host | retained as \`${view.deferralId}\` |`] : [],
      "",
      view.deferralId ? "No work ran. The durable host wakes a fresh run at the resume time." : "No work ran. Start a fresh run with the `deferred-receipt` output as the `receipt` input at or after the resume time.",
      ""
    );
  }
  if (view.status === "blocked" || view.status === "error") lines.push(text(explainLine(view)), "");
  const notes = (view.diagnostics ?? []).filter((d) => d.code !== view.code);
  if (notes.length > 0) {
    lines.push("<details><summary>Diagnostics</summary>", "");
    for (const d of notes) lines.push(`- \`${d.code}\`: ${text(d.message)}`);
    lines.push("", "</details>", "");
  }
  return lines.join("\n");
}

// dist/lib/coordinator-handoff.js
init_builtin();
init_exit_codes();

// dist/lib/resumable-host.js
init_core();

// dist/lib/host-port.js
var PORT_TIMEOUT_MS = 15e3;
var PortError = class extends Error {
  constructor(status, code, message, path) {
    super(message);
    this.name = "PortError";
    this.status = status;
    this.code = code;
    if (path) this.path = path;
  }
};
var receiptText = (receipt) => typeof receipt === "string" ? receipt.trim() : JSON.stringify(receipt);
function createPortClient({ url, token, timeoutMs = PORT_TIMEOUT_MS, env: env2 = process.env } = {}) {
  if (!url) throw new PortError(0, "invalid-port", "the port needs a url, e.g. http://127.0.0.1:8787");
  if (!token) throw new PortError(0, "invalid-port", "the port needs its bearer token");
  const base = new URL(url);
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new PortError(0, "invalid-port", `unsupported URL scheme ${base.protocol}`);
  }
  const root = base.href.replace(/\/+$/, "");
  async function call2(method, path, body) {
    const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (body !== void 0) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    let answer;
    try {
      answer = await request(`${root}${path}`, { method, headers, body, timeoutMs, env: env2 });
    } catch (err) {
      const code = err instanceof TransportError ? err.code : "EIO";
      throw new PortError(0, "port-unreachable", `cannot reach the durable port at ${base.origin}: ${err.message} (${code})`);
    }
    let json = null;
    try {
      json = JSON.parse(answer.body);
    } catch {
    }
    if (answer.status >= 200 && answer.status < 300 && json && typeof json === "object") return json;
    const error = json?.error;
    if (error?.code) throw new PortError(answer.status, error.code, error.message ?? error.code, error.path);
    throw new PortError(answer.status, "port-error", `the durable port answered HTTP ${answer.status} without a JSON error`);
  }
  const at = (id, action = "") => `/v1/deferrals/${encodeURIComponent(id)}${action}`;
  return {
    url: base.origin,
    record: ({ receipt, launch, maxReentries }) => {
      const max = maxReentries === void 0 ? "" : `,"max_reentries":${JSON.stringify(maxReentries)}`;
      return call2("POST", "/v1/deferrals", `{"receipt":${receiptText(receipt)},"launch":${JSON.stringify(launch)}${max}}`);
    },
    get: (id) => call2("GET", at(id)),
    cancel: (id, handle) => call2("POST", at(id, "/cancel"), JSON.stringify({ handle })),
    claim: (id, wakeupHandle) => call2("POST", at(id, "/claim"), JSON.stringify({ wakeup_handle: wakeupHandle })),
    outcome: (id, { attempt, outcome, handle, receipt }) => {
      const head = JSON.stringify({ attempt, outcome, handle });
      const body = receipt === void 0 ? head : `${head.slice(0, -1)},"receipt":${receiptText(receipt)}}`;
      return call2("POST", at(id, "/outcome"), body);
    }
  };
}

// dist/lib/resumable-host.js
var EVENT_OF_OUTCOME = { complete: "complete", blocked: "block", deferred: "defer" };
var refuse = (code, message, path) => new PortError(0, code, message, path);
function checkReceipt(receipt) {
  const checked = validateReceipt(receiptText(receipt));
  if (!checked.ok) throw refuse(checked.error.code, checked.error.message, checked.error.path);
  return checked.receipt;
}
function checkStep(deferral, event) {
  const step = lifecycleTransition({
    state: deferral.state,
    event,
    reentries: deferral.reentries,
    max_reentries: deferral.max_reentries
  });
  if (!step.ok) throw refuse(step.error.code, step.error.message, step.error.path);
  return step;
}
var sameBindings = (a, b) => JSON.stringify(a.bindings) === JSON.stringify(b.bindings);
function createResumableDeferralHost(port, options = {}) {
  const client = typeof port?.record === "function" ? port : createPortClient(port);
  return {
    /** Hands a handoff receipt to the host: answers {id, receipt (retained), cancellationHandle}. */
    async retain(receipt, { launch = options.launch, maxReentries = options.maxReentries } = {}) {
      const handoff = checkReceipt(receipt);
      if (handoff.ownership?.disposition === "retained") {
        throw refuse("already-retained", "the receipt is already retained; hand over the handoff receipt the gate emitted", "$.ownership");
      }
      if (typeof launch !== "string" || launch === "") {
        throw refuse("invalid-launch", "retain needs a launch target: exec:COMMAND or workflow-dispatch:OWNER/REPO/WORKFLOW@REF");
      }
      checkStep({ state: "ready", reentries: 0, max_reentries: maxReentries }, "record");
      const answer = await client.record({ receipt, launch, maxReentries });
      const retained = checkReceipt(answer.receipt);
      if (retained.ownership?.disposition !== "retained" || !sameBindings(retained, handoff)) {
        throw refuse("unexpected-receipt", "the host answered a receipt that is not the retained form of the one sent");
      }
      return { id: answer.id, receipt: retained, cancellationHandle: answer.cancellation_handle };
    },
    /** The deferral as `deferral-host status --json ID` prints it. */
    status: (id) => client.get(id),
    /** Cancels with the cancellation handle; a terminal deferral is refused without a request. */
    async cancel(id, handle) {
      checkStep(await client.get(id), "cancel");
      return client.cancel(id, handle);
    },
    /** Proves a launch's claim with its wake-up handle: answers {id, attempt, receipt, ...}. */
    claim: (id, wakeupHandle) => client.claim(id, wakeupHandle),
    /**
     * A fresh process reports how its attempt ended: the lifecycle step and the new receipt
     * (for `deferred`) are checked locally, the claim is proven with the wake-up handle, then
     * the outcome is recorded. Answers {id, state, cause[, receipt]}.
     */
    async resume(id, { attempt, wakeupHandle, outcome, receipt } = {}) {
      const event = EVENT_OF_OUTCOME[outcome];
      if (!event) throw refuse("invalid-outcome", `outcome ${JSON.stringify(outcome)} is not complete, blocked or deferred`);
      if (outcome === "deferred") {
        if (receipt === void 0) throw refuse("missing-receipt", "a deferred outcome needs the new receipt");
        checkReceipt(receipt);
      }
      checkStep(await client.get(id), event);
      const claim = await client.claim(id, wakeupHandle);
      if (attempt !== void 0 && claim.attempt !== attempt) {
        throw refuse("stale-attempt", `attempt ${attempt} is not the current attempt ${claim.attempt}`);
      }
      return client.outcome(id, { attempt: claim.attempt, outcome, handle: wakeupHandle, receipt });
    }
  };
}

// dist/lib/coordinator-handoff.js
var { mkdirSync, writeFileSync } = builtin("node:fs");
var { tmpdir } = builtin("node:os");
var { join } = builtin("node:path");
var invalid2 = (code, message) => new CommandError(EXIT.invalid, code, message);
function coordinatorConfig(raw) {
  if (!raw.coordinatorUrl) return null;
  let url;
  try {
    url = new URL(raw.coordinatorUrl);
  } catch {
    url = null;
  }
  if (!url || url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalid2("invalid-coordinator-url", "coordinator-url must be an http:// or https:// URL of deferral-host serve");
  }
  if (!raw.coordinatorToken) throw invalid2("missing-coordinator-token", "coordinator-url needs coordinator-token (the serve bearer token, from a secret)");
  if (!raw.coordinatorLaunch) {
    throw invalid2("missing-coordinator-launch", "coordinator-url needs coordinator-launch, e.g. workflow-dispatch:OWNER/REPO/WORKFLOW@REF");
  }
  return { url: url.href, token: raw.coordinatorToken, launch: raw.coordinatorLaunch };
}
function writeHandleFile(id, handle, env2) {
  const dir = join(env2.RUNNER_TEMP || tmpdir(), "deferral");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `cancellation-handle-${id}`);
  writeFileSync(path, `${handle}
`, { mode: 384, flag: "wx" });
  return path;
}
async function retainWithCoordinator(config, receipt, env2) {
  const host = createResumableDeferralHost({ url: config.url, token: config.token, env: env2 });
  let retained;
  try {
    retained = await host.retain(JSON.stringify(receipt), { launch: config.launch });
  } catch (err) {
    const http2 = err.status ? `HTTP ${err.status} ` : "";
    throw new CommandError(
      EXIT.provider,
      "coordinator-failed",
      `the durable port did not retain the receipt (${http2}${err.code ?? "error"}: ${err.message}); the handoff receipt is kept at receipt-path`
    );
  }
  if (typeof retained.id !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(retained.id)) {
    throw new CommandError(EXIT.provider, "invalid-coordinator-answer", "the durable port answered a deferral id that is not 1 to 64 of [A-Za-z0-9_-]; the handoff receipt is kept at receipt-path");
  }
  if (typeof retained.cancellationHandle !== "string" || !/^[0-9a-f]{64}$/.test(retained.cancellationHandle)) {
    throw new CommandError(EXIT.provider, "invalid-coordinator-answer", "the durable port answered a cancellation handle that is not 64 lowercase hex; the handoff receipt is kept at receipt-path");
  }
  return { id: retained.id, receipt: retained.receipt, handle: retained.cancellationHandle, handlePath: writeHandleFile(retained.id, retained.cancellationHandle, env2) };
}

// dist/run.js
var { mkdirSync: mkdirSync2, writeFileSync: writeFileSync2 } = builtin("node:fs");
var { tmpdir: tmpdir2 } = builtin("node:os");
var { join: join2 } = builtin("node:path");
function writeReceiptFile(receipt, env2) {
  const dir = join2(env2.RUNNER_TEMP || tmpdir2(), "deferral");
  mkdirSync2(dir, { recursive: true });
  const path = join2(dir, `deferred-receipt-${receipt.issued_at_ms}.json`);
  writeFileSync2(path, `${JSON.stringify(receipt)}
`, { mode: 420 });
  return path;
}
function readReceiptInput(text2) {
  return Buffer.from(text2, "utf8");
}
async function run(env2 = process.env) {
  const raw = readActionInputs(env2);
  mask(raw.token);
  mask(raw.coordinatorToken);
  mask(env2.DEFERRAL_WAKEUP_HANDLE);
  let onDeferral = "fail";
  const finish = (view, outputs) => {
    setOutputs(outputs, env2);
    appendSummary(summaryMarkdown(view), env2);
    const line = explainLine(view);
    process.stdout.write(`deferral: ${escapeData(line)}
`);
    const failed = view.status !== "ready" && !(view.status === "deferred" && onDeferral === "succeed");
    const level = failed ? "error" : view.status === "deferred" ? "warning" : "notice";
    if (view.status !== "ready") annotate(level, line, { title: `Deferral: ${view.status}` });
    process.exitCode = failed ? 1 : 0;
  };
  let kept = null;
  try {
    const coordinator = coordinatorConfig(raw);
    const options = buildGateOptions(raw, env2);
    onDeferral = options.onDeferral;
    options.ledgerFile = raw.ledgerFile;
    options.wakeupHandle = env2.DEFERRAL_WAKEUP_HANDLE;
    if (!raw.token) {
      throw new CommandError(EXIT.auth, "missing-token", "the token input is empty: pass a token (the default is github.token)");
    }
    const source = { token: raw.token, env: env2 };
    let result;
    if (raw.receipt) {
      options.receiptBytes = readReceiptInput(raw.receipt);
      result = await runResume(options, source);
    } else {
      result = await runGate(options, source);
    }
    const receiptPath = result.status === "deferred" && result.receipt ? writeReceiptFile(result.receipt, env2) : "";
    const extra = { "deferral-id": "", "cancellation-handle-path": "" };
    if (receiptPath && coordinator && !raw.receipt) {
      kept = { ...actionOutputs(result, receiptPath), ...extra, status: "error" };
      const retained = await retainWithCoordinator(coordinator, result.receipt, env2);
      result.receipt = retained.receipt;
      writeReceiptFile(retained.receipt, env2);
      extra["deferral-id"] = retained.id;
      extra["cancellation-handle-path"] = retained.handlePath;
    }
    const view = resultJson(result);
    if (extra["deferral-id"]) view.deferralId = extra["deferral-id"];
    finish(view, { ...actionOutputs(result, receiptPath), ...extra });
  } catch (err) {
    const known = err instanceof CommandError;
    const code = known ? err.code : "internal-error";
    const message = known ? err.message : `unexpected failure: ${err?.stack ?? err}`;
    const outputs = kept ?? { ...errorOutputs(), "deferral-id": "", "cancellation-handle-path": "" };
    finish({ status: "error", code, message, diagnostics: [{ code, message }] }, outputs);
  }
}

// dist/main.js
await run();
