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

// dist/lib/wasm.js
var { readFileSync } = builtin("node:fs");
var { inflateRawSync } = builtin("node:zlib");
var WASM_DIR = false ? "../wasm/" : "./wasm/";
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
var input = new Uint8Array(0);
var words = new Uint32Array(0);
function call(name, input2) {
  if (typeof deferral_wasm_exports[name] !== "function") throw new Error(`the wasm core has no function ${name}`);
  return cross(name, typeof input2 === "string" ? input2 : JSON.stringify(input2));
}
function run2(input2, files) {
  return cross("run", input2, files);
}

// dist/lib/http.js
var http = builtin("node:http");
var secure;
var loadTls = () => secure ??= { https: builtin("node:https"), tls: builtin("node:tls") };
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
function send(options, client, signal, body, maxBytes) {
  return new Promise((resolve, reject) => {
    const req = client.request({ ...options, signal }, (res) => {
      const chunks = [];
      let size = 0;
      res.on("data", (chunk) => {
        size += chunk.length;
        if (size > maxBytes) {
          req.destroy(new TransportError("ETOOBIG", `the response body is larger than ${maxBytes} bytes`));
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
function proxyOf(href, chosen, env) {
  if (chosen === void 0) {
    const passed = Object.fromEntries(Object.entries(env).filter(([k]) => /^(https?|no)_proxy$/i.test(k)));
    const answer = call("proxy_for", { url: href, env: passed });
    if (!answer.ok) throw new TransportError("EPROXYSCHEME", answer.error.message);
    chosen = answer.proxy;
  }
  return chosen ? new URL(chosen) : void 0;
}
async function request(href, { method = "GET", headers = {}, body, timeoutMs, maxBytes, env = process.env, proxy: chosen } = {}) {
  const url = new URL(href);
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TransportError("EURL", `unsupported URL scheme ${url.protocol}`);
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const path = `${url.pathname}${url.search}`;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  try {
    const proxy = proxyOf(href, chosen, env);
    const lib = url.protocol === "https:" || proxy?.protocol === "https:" ? loadTls() : null;
    if (!proxy) {
      return await send({ host, port: defaultPort(url), path, method, headers, agent: false }, lib ? lib.https : http, controller.signal, body, maxBytes);
    }
    if (url.protocol === "https:") {
      const socket = await tunnel(proxy, url, controller.signal, lib);
      return await send({ host, port: defaultPort(url), path, method, headers, servername: host, createConnection: () => socket }, lib.https, controller.signal, body, maxBytes);
    }
    return await send({
      host: proxy.hostname.replace(/^\[|\]$/g, ""),
      port: defaultPort(proxy),
      path: url.href,
      method,
      headers: { host: url.host, ...headers, ...proxyAuthorization(proxy) },
      agent: false
    }, proxy.protocol === "https:" ? lib.https : http, controller.signal, body, maxBytes);
  } catch (err) {
    if (controller.signal.aborted) throw new TransportError("ETIMEDOUT", `no answer within ${timeoutMs} ms`);
    throw transportError(err, "the request failed");
  } finally {
    clearTimeout(timer);
  }
}

// dist/lib/read-input.js
var { openSync, readSync, closeSync } = builtin("node:fs");
var IoError = class extends Error {
  constructor(facts) {
    super(facts.detail ?? facts.op);
    this.facts = facts;
  }
};
function readUpTo(path, limit) {
  const buffer = Buffer.allocUnsafe(limit + 1);
  let size = 0;
  let fd = 0;
  try {
    if (path !== "-") fd = openSync(path, "r");
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
  } catch (err) {
    throw new IoError({ op: "read", path, detail: err.code ?? err.message });
  } finally {
    if (fd !== 0) closeSync(fd);
  }
  return buffer.subarray(0, size);
}

// dist/lib/ledger-file.js
var { closeSync: closeSync2, fsyncSync, openSync: openSync2, readFileSync: readFileSync2, renameSync, statSync, unlinkSync, writeSync, linkSync } = builtin("node:fs");
var randomBytes = (size) => builtin("node:crypto").randomBytes(size);
var { hostname } = builtin("node:os");
var pause = new Int32Array(new SharedArrayBuffer(4));
var sleepMs = (ms) => Atomics.wait(pause, 0, 0, ms);
function readText(path) {
  try {
    return readFileSync2(path, "utf8");
  } catch (err) {
    if (err.code === "ENOENT") return null;
    throw new IoError({ op: "ledger", detail: err.code ?? err.message });
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
function acquire(lockPath, { wait_ms: waitMs, stale_ms: staleMs }) {
  const token = `${hostname()} ${process.pid} ${randomBytes(8).toString("hex")}`;
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync2(lockPath, "wx", 384);
      writeSync(fd, token);
      closeSync2(fd);
      return token;
    } catch (err) {
      if (err.code !== "EEXIST") throw new IoError({ op: "lock", detail: err.code });
    }
    const seen = readText(lockPath);
    let age = 0;
    try {
      age = Date.now() - statSync(lockPath).mtimeMs;
    } catch {
      continue;
    }
    if (seen !== null && seen !== "" && (!ownerAlive(seen) || age > staleMs)) {
      breakStaleLock(lockPath, seen);
      continue;
    }
    if (Date.now() > deadline) {
      throw new IoError({ op: "lock-timeout", ms: waitMs });
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
function withLock(lock, update) {
  const { path } = lock;
  const lockPath = `${path}.lock`;
  const token = acquire(lockPath, lock);
  try {
    let bytes2 = null;
    try {
      bytes2 = readUpTo(path, lock.limit);
    } catch (err) {
      if (err.facts.detail !== "ENOENT") throw new IoError({ op: "ledger", detail: err.facts.detail });
    }
    const step = update(bytes2);
    if (typeof step.ledger === "string") writeAtomically(path, step.ledger);
    return step;
  } finally {
    release(lockPath, token);
  }
}

// dist/lib/private-folder.js
var { lstatSync, mkdirSync } = builtin("node:fs");
function privateFolder(dir) {
  const refuse = (detail) => new IoError({ op: "folder", path: dir, detail });
  try {
    mkdirSync(dir, { recursive: true, mode: 448 });
  } catch (err) {
    throw refuse(`cannot create it (${err.code ?? err.message})`);
  }
  if (process.platform === "win32") return;
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw refuse("it is not a directory (a link or a file is in its place)");
  const uid = process.getuid();
  if (st.uid !== uid) throw refuse(`it is owned by uid ${st.uid}, not by this user (uid ${uid})`);
  if ((st.mode & 18) !== 0) throw refuse(`others may write it (mode ${(st.mode & 4095).toString(8).padStart(4, "0")})`);
}

// dist/lib/attempt.js
var { appendFileSync, mkdirSync: mkdirSync2, writeFileSync } = builtin("node:fs");
var { dirname } = builtin("node:path");
var { tmpdir } = builtin("node:os");
var PASSED = /^(INPUT_|GITHUB_|RUNNER_|DEFERRAL_)|^(HTTPS?_PROXY|NO_PROXY|GH_TOKEN)$/i;
function writeFile(w) {
  try {
    if (w.append) {
      appendFileSync(w.path, w.text, "utf8");
      return;
    }
    if (w.private_folder) privateFolder(dirname(w.path));
    else mkdirSync2(dirname(w.path), { recursive: true });
    writeFileSync(w.path, w.text, { mode: w.mode, flag: w.exclusive ? "wx" : "w" });
  } catch (err) {
    if (err instanceof IoError) throw err;
    throw new IoError({ op: "write", path: w.path, detail: err.code ?? err.message });
  }
}
function perform(step) {
  for (const dir of step.folders ?? []) privateFolder(dir);
  for (const w of step.writes ?? []) {
    if (w.best_effort) {
      try {
        appendFileSync(w.path, w.text, "utf8");
      } catch (err) {
        process.stderr.write(`deferral: warning: could not append to ${w.path}: ${err.message}
`);
      }
      continue;
    }
    writeFile(w);
  }
  if (step.stdout) process.stdout.write(step.stdout);
  if (step.stderr) process.stderr.write(step.stderr);
}
function failLast(err, input2, cross2) {
  input2.io_error = err instanceof IoError ? err.facts : { op: "internal", detail: String(err?.message ?? err) };
  const step = cross2();
  try {
    perform(step);
  } catch {
    if (step.stdout) process.stdout.write(step.stdout);
    if (step.stderr) process.stderr.write(step.stderr);
  }
  return step;
}
async function send2(req, env, input2) {
  const headers = Object.fromEntries(req.headers);
  const token = env[req.token_env]?.trim();
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    input2[req.into ?? "answer"] = await request(req.url, {
      method: req.method,
      headers,
      body: req.body,
      proxy: req.proxy ?? null,
      timeoutMs: req.timeout_ms,
      maxBytes: req.max_bytes
    });
  } catch (err) {
    input2[req.error_into ?? "transport_error"] = err.message;
  }
}
async function runAttempt(start, env = process.env) {
  const input2 = {
    ...start,
    crossing: 0,
    tmpdir: tmpdir(),
    uid: process.getuid?.() ?? null,
    stderr_tty: Boolean(process.stderr.isTTY),
    env: Object.fromEntries(Object.entries(env).filter(([k]) => PASSED.test(k))),
    now_ms: Date.now(),
    utc_offset_min: -(/* @__PURE__ */ new Date()).getTimezoneOffset()
  };
  const files = [];
  const cross2 = () => {
    input2.file_sizes = files.map(([name, bytes2, path]) => [name, bytes2?.length ?? null, path]);
    const step2 = run2(JSON.stringify(input2), Buffer.concat(files.filter((f) => f[1]).map((f) => f[1])));
    input2.crossing++;
    return step2;
  };
  let step = cross2();
  while (step.step !== "done") {
    try {
      perform(step);
      for (const r of step.read ?? []) files.push([r.name, readUpTo(r.path, r.limit), r.path]);
      if (step.request) await send2(step.request, env, input2);
      if (!step.same_clock) input2.now_ms = Date.now();
      step = step.lock ? withLock(step.lock, (bytes2) => {
        files.push(["ledger", bytes2, step.lock.path]);
        return cross2();
      }) : cross2();
    } catch (err) {
      input2.io_error = err instanceof IoError ? err.facts : { op: "internal", detail: String(err?.message ?? err) };
      step = cross2();
    }
  }
  try {
    perform(step);
  } catch (err) {
    return failLast(err, input2, cross2);
  }
  return step;
}

// dist/main.js
var { realpathSync } = builtin("node:fs");
var { fileURLToPath } = builtin("node:url");
async function run3() {
  const done = await runAttempt({ surface: "action" });
  process.exitCode = done.process_exit;
  return done;
}
function startedHere() {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
if (startedHere()) await run3();
export {
  run3 as run
};
