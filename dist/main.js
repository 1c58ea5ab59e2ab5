// Bundled by scripts/build-dist.sh from action/main.js and what it imports: edit those.
var __defProp = Object.defineProperty;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};

// dist/lib/builtin.js
import { createRequire } from "node:module";
var builtin = process.getBuiltinModule ?? createRequire(import.meta.url);

// dist/wasm/deferral_wasm.js
var deferral_wasm_exports = {};
__export(deferral_wasm_exports, {
  attempt: () => attempt,
  classify_response: () => classify_response,
  command: () => command,
  decide: () => decide,
  default: () => __wbg_init,
  digest: () => digest,
  graphql_cost: () => graphql_cost,
  initSync: () => initSync,
  input_buffer: () => input_buffer,
  last_error: () => last_error,
  library: () => library,
  lifecycle_transition: () => lifecycle_transition,
  merge_ledger: () => merge_ledger,
  observe_response: () => observe_response,
  parse_rate_limit: () => parse_rate_limit,
  plan_cost: () => plan_cost,
  preflight: () => preflight,
  read_ledger: () => read_ledger,
  read_rate_state: () => read_rate_state,
  validate_input: () => validate_input,
  validate_receipt: () => validate_receipt,
  version: () => version
});
function attempt(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.attempt(ptr0, len0);
    deferred2_0 = ret[0];
    deferred2_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred2_0, deferred2_1, 1);
  }
}
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
function command(name, bytes2, now_ms, utc_offset_min, kind) {
  let deferred6_0;
  let deferred6_1;
  try {
    const val4 = +now_ms;
    const val5 = +utc_offset_min;
    let ptr0, len0, ptr1, len1, ptr2, len2;
    try {
      ptr0 = passStringToWasm0(name, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
      len0 = WASM_VECTOR_LEN;
      ptr1 = passArray8ToWasm0(bytes2, wasm.__wbindgen_malloc);
      len1 = WASM_VECTOR_LEN;
      ptr2 = passStringToWasm0(kind, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
      len2 = WASM_VECTOR_LEN;
    } catch (e) {
      if (ptr2) {
        wasm.__wbindgen_free(ptr2, len2 * 1, 1);
      }
      if (ptr1) {
        wasm.__wbindgen_free(ptr1, len1 * 1, 1);
      }
      if (ptr0) {
        wasm.__wbindgen_free(ptr0, len0 * 1, 1);
      }
      throw e;
    }
    const ret = wasm.command(ptr0, len0, ptr1, len1, val4, val5, ptr2, len2);
    deferred6_0 = ret[0];
    deferred6_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred6_0, deferred6_1, 1);
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
function input_buffer(len) {
  const ret = wasm.input_buffer(len);
  return ret >>> 0;
}
function last_error() {
  let deferred1_0;
  let deferred1_1;
  try {
    const ret = wasm.last_error();
    deferred1_0 = ret[0];
    deferred1_1 = ret[1];
    return getStringFromWasm0(ret[0], ret[1]);
  } finally {
    wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
  }
}
function library(input) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(input, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
    const len0 = WASM_VECTOR_LEN;
    const ret = wasm.library(ptr0, len0);
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
function read_ledger(text) {
  let deferred2_0;
  let deferred2_1;
  try {
    const ptr0 = passStringToWasm0(text, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
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
function validate_input(len) {
  const ret = wasm.validate_input(len);
  return ret >>> 0;
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

// dist/lib/core.js
var { readFileSync } = builtin("node:fs");
var { brotliDecompressSync } = builtin("node:zlib");
var WASM_DIR = false ? "../wasm/" : "./wasm/";
var bytes = brotliDecompressSync(readFileSync(new URL(`${WASM_DIR}deferral_wasm_bg.wasm.br`, import.meta.url)));
var { memory } = initSync({ module: bytes });
var trace = process.env.DEFERRAL_TRACE_CORE === "1";
function cross(name, ...args) {
  if (trace) process.stderr.write(`deferral-core-call ${name}
`);
  return JSON.parse(deferral_wasm_exports[name](...args));
}
var encoder = new TextEncoder();
var READ_LIMIT = 16 * 1024 + 1;
function call(name, input) {
  if (typeof deferral_wasm_exports[name] !== "function") throw new Error(`the wasm core has no function ${name}`);
  return cross(name, typeof input === "string" ? input : JSON.stringify(input));
}

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

// dist/lib/exit-codes.js
var EXIT = Object.freeze({
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
var CommandError = class extends Error {
  constructor(exit, code, message, path) {
    super(message);
    this.exit = exit;
    this.code = code;
    this.path = path;
  }
};

// dist/lib/read-input.js
var { openSync, readSync, closeSync } = builtin("node:fs");
var MAX_INPUT_BYTES = 1 << 20;
var RECEIPT_READ_BYTES = 16 * 1024 + 1;
var where = (path) => path === "-" ? "standard input" : path;
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

// dist/lib/ledger-file.js
var { closeSync: closeSync2, fsyncSync, openSync: openSync2, readFileSync: readFileSync2, renameSync, statSync, unlinkSync, writeSync, linkSync } = builtin("node:fs");
var { randomBytes } = builtin("node:crypto");
var { hostname } = builtin("node:os");
var LOCK_WAIT_MS = 1e4;
var STALE_LOCK_MS = 3e4;
var pause = new Int32Array(new SharedArrayBuffer(4));
var sleepMs = (ms) => Atomics.wait(pause, 0, 0, ms);
function readText(path) {
  try {
    return readFileSync2(path, "utf8");
  } catch (err) {
    if (err.code === "ENOENT") return null;
    throw new CommandError(EXIT.invalid, "unreadable-ledger", `cannot read the ledger file: ${err.code ?? err.message}`);
  }
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
  for (let attempt2 = 0; ; attempt2++) {
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
    sleepMs(Math.min(50, 2 + attempt2));
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
function writeAtomically(path, text) {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync2(temp, "wx", 420);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync2(fd);
  }
  renameSync(temp, path);
}
function withLedgerLock(path, update) {
  const lockPath = `${path}.lock`;
  const token = acquire(lockPath);
  try {
    let size = 0;
    try {
      size = statSync(path).size;
    } catch {
    }
    if (size > MAX_INPUT_BYTES) throw new CommandError(EXIT.invalid, "too-large", `the ledger file is larger than ${MAX_INPUT_BYTES} bytes`);
    const [result, text] = update(readText(path));
    if (text !== null) writeAtomically(path, text);
    return result;
  } finally {
    release(lockPath, token);
  }
}

// dist/lib/attempt.js
var { mkdirSync, writeFileSync } = builtin("node:fs");
var { dirname } = builtin("node:path");
var ENV = ["GITHUB_API_URL", "GITHUB_REPOSITORY", "GITHUB_WORKFLOW_REF", "GITHUB_JOB", "DEFERRAL_WAKEUP_HANDLE"];
function writeAll(writes = []) {
  for (const w of writes) {
    mkdirSync(dirname(w.path), { recursive: true });
    writeFileSync(w.path, w.text, { mode: w.mode, flag: w.exclusive ? "wx" : "w" });
  }
}
async function ask(req, token, env2, input) {
  const headers = Object.fromEntries(req.headers);
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    input.answer = await request(req.url, { headers, env: env2 });
  } catch (err) {
    input.transport_error = err.message;
  }
}
async function retain(port, secret, env2, input) {
  const { createResumableDeferralHost } = await import("deferral");
  try {
    const host = createResumableDeferralHost({ url: port.url, token: secret, env: env2 });
    const got = await host.retain(JSON.stringify(port.receipt), { launch: port.launch });
    input.retained = { id: got.id, receipt: got.receipt, cancellation_handle: got.cancellationHandle };
  } catch (err) {
    input.coordinator_error = `${err.status ? `HTTP ${err.status} ` : ""}${err.code ?? "error"}: ${err.message}`;
  }
}
async function runAttempt({ command: command2, surface, inputs, env: env2, token, tempDir = "" }) {
  const input = {
    command: command2,
    surface,
    inputs,
    token: Boolean(token),
    files: {},
    temp_dir: tempDir,
    env: Object.fromEntries(ENV.filter((k) => env2[k]).map((k) => [k, env2[k]])),
    now_ms: Date.now(),
    utc_offset_min: -(/* @__PURE__ */ new Date()).getTimezoneOffset()
  };
  let step = call("attempt", input);
  try {
    while (step.step !== "done") {
      for (const [name, path] of Object.entries(step.read ?? {})) {
        const limits = name === "receipt" ? { limit: RECEIPT_READ_BYTES - 1, allowOver: true } : {};
        input.files[name] = readBounded(path, name, limits).toString("utf8");
      }
      if (step.request) await ask(step.request, token, env2, input);
      writeAll(step.writes);
      if (step.step === "retain") await retain(step.retain, inputs["coordinator-token"], env2, input);
      else input.now_ms = Date.now();
      const cross2 = (ledger) => {
        if (ledger !== void 0) input.files.ledger = ledger;
        const next = call("attempt", input);
        return [next, next.ledger ?? null];
      };
      step = step.lock ? withLedgerLock(step.lock, cross2) : cross2(void 0)[0];
    }
  } catch (err) {
    if (!(err instanceof CommandError)) throw err;
    input.shell_error = { code: err.code, message: err.message, exit: err.exit, path: err.path };
    step = call("attempt", input);
  }
  writeAll(step.writes);
  return step;
}

// dist/lib/runner.js
var { appendFileSync } = builtin("node:fs");
var { EOL } = builtin("node:os");
function mask(secret, write = (line) => process.stdout.write(line)) {
  if (!secret) return;
  for (const part of String(secret).split(/\r?\n/)) {
    if (part.trim() !== "") write(`::add-mask::${escapeData(part)}${EOL}`);
  }
}
function escapeData(text) {
  return String(text).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
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
  const text = value === void 0 || value === null ? "" : String(value);
  const delimiter = delimiterFor(text);
  return `${name}<<${delimiter}${EOL}${text}${EOL}${delimiter}${EOL}`;
}
function setOutputs(outputs, env2 = process.env) {
  const file = env2.GITHUB_OUTPUT;
  const text = Object.entries(outputs).map(([name, value]) => outputRecord(name, value)).join("");
  if (file) {
    appendFileSync(file, text, { encoding: "utf8" });
  } else {
    for (const [name, value] of Object.entries(outputs)) process.stdout.write(`${name}=${escapeData(value ?? "")}${EOL}`);
  }
}
function appendSummary(markdown, env2 = process.env) {
  if (env2.GITHUB_STEP_SUMMARY) appendFileSync(env2.GITHUB_STEP_SUMMARY, `${markdown}${EOL}`, { encoding: "utf8" });
}

// dist/run.js
var { tmpdir } = builtin("node:os");
var { EOL: EOL2 } = builtin("node:os");
var INPUTS = [
  "token",
  "rest-reserve",
  "graphql-reserve",
  "plan",
  "scope",
  "request",
  "receipt",
  "resume-buffer",
  "resume-window",
  "resume-jitter",
  "fresh-approval",
  "approval",
  "on-deferral",
  "ledger-file",
  "coordinator-url",
  "coordinator-token",
  "coordinator-launch"
];
async function run(env2 = process.env) {
  const inputs = Object.fromEntries(INPUTS.map((name) => [name, env2[`INPUT_${name.toUpperCase()}`]?.trim() ?? ""]));
  for (const secret of [inputs.token, inputs["coordinator-token"], env2.DEFERRAL_WAKEUP_HANDLE]) mask(secret);
  const done = await runAttempt({
    command: inputs.receipt ? "resume" : "gate",
    surface: "action",
    inputs,
    env: env2,
    token: inputs.token,
    tempDir: env2.RUNNER_TEMP || tmpdir()
  });
  setOutputs(done.outputs, env2);
  appendSummary(done.summary, env2);
  for (const line of done.commands) process.stdout.write(`${line}${EOL2}`);
  process.exitCode = done.failed ? 1 : 0;
}

// dist/main.js
await run();
