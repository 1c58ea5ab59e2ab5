// Bundled by scripts/build-dist.sh from library/: edit those.
import {
  INVALID_RECEIPT,
  builtin,
  call,
  createGovernedHandoffReceipt,
  lifecycleTransition,
  parseDeferredReceiptV1,
  receiptDigest,
  receiptWindow,
  validateReceipt,
  validateReceipt2
} from "./chunk-UVS426GE.js";

// action/lib/proxy-env.js
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

// action/lib/http.js
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

// library/host-port.js
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
    /** The deferral recorded from a receipt, by the receipt's digest (as `get` answers it). */
    getByReceipt: (digest) => call2("GET", `/v1/receipts/${encodeURIComponent(digest)}`),
    cancel: (id, handle) => call2("POST", at(id, "/cancel"), JSON.stringify({ handle })),
    claim: (id, wakeupHandle) => call2("POST", at(id, "/claim"), JSON.stringify({ wakeup_handle: wakeupHandle })),
    outcome: (id, { attempt, outcome, handle, receipt }) => {
      const head = JSON.stringify({ attempt, outcome, handle });
      const body = receipt === void 0 ? head : `${head.slice(0, -1)},"receipt":${receiptText(receipt)}}`;
      return call2("POST", at(id, "/outcome"), body);
    }
  };
}

// library/client-host.js
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
function createClientHost(port, options = {}) {
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
      const retained2 = checkReceipt(answer.receipt);
      if (retained2.ownership?.disposition !== "retained" || !sameBindings(retained2, handoff)) {
        throw refuse("unexpected-receipt", "the host answered a receipt that is not the retained form of the one sent");
      }
      return { id: answer.id, receipt: retained2, cancellationHandle: answer.cancellation_handle };
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

// library/port-host.js
var INVALID_TRANSITION = "invalid deferral transition";
function transitionError(code, detail) {
  return Object.assign(new TypeError(INVALID_TRANSITION), { code, detail });
}
var LIFECYCLE_STATE = { deferred: "deferred", resumable: "resumable", cancelled: "cancelled", expired: "cancelled", complete: "complete", blocked: "blocked" };
var OUTCOMES = /* @__PURE__ */ new Set(["complete", "deferred", "blocked"]);
function mayRun(portState2) {
  const state = LIFECYCLE_STATE[portState2];
  return state !== void 0 && lifecycleTransition({ state, event: "complete" }).ok === true;
}
function retained(receipt) {
  if (receipt.ownership.disposition !== "retained") {
    throw transitionError("not-retained", "the receipt is a governed handoff; retain it first");
  }
  return receipt;
}
function checkedResult(result, previous) {
  if (!OUTCOMES.has(result?.status)) {
    throw transitionError("invalid-outcome", `the fresh process answered status ${JSON.stringify(result?.status)}, not complete, deferred or blocked`);
  }
  if (result.status !== "deferred") return { status: result.status };
  const next = parseDeferredReceiptV1(result.receipt);
  if (next.bindings.scope_digest !== previous.bindings.scope_digest) {
    return { status: "blocked", code: "binding-mismatch", field: "scope_digest" };
  }
  return { status: "deferred", receipt: next };
}
function createPortHost(port, nowMs = Date.now) {
  if (typeof nowMs !== "function") throw new TypeError("nowMs must be a function answering epoch milliseconds");
  return {
    /** Schedules a governed-handoff receipt with the port; answers its retained form. */
    async retain(source) {
      const handoff = parseDeferredReceiptV1(source);
      if (handoff.ownership.disposition !== "handoff") {
        throw transitionError("already-retained", "the receipt is already retained");
      }
      if (receiptWindow(handoff, nowMs()) === "expired") {
        throw transitionError("expired", "the receipt's resume window has passed");
      }
      const handles = await port.schedule(handoff);
      return parseDeferredReceiptV1({
        ...handoff,
        ownership: {
          disposition: "retained",
          mode: "durable-host",
          wakeup_digest: handles?.wakeupDigest,
          cancellation_digest: handles?.cancellationDigest
        }
      });
    },
    /** Cancels a retained receipt through the port. */
    async cancel(source) {
      await port.cancel(retained(parseDeferredReceiptV1(source)));
    },
    /**
     * Runs `freshProcess(bindings, freshApprovalRequired)` once when the receipt is due and
     * the port says it is resumable; answers {status: 'blocked'} when the port says otherwise.
     */
    async resume(source, freshProcess) {
      const receipt = retained(parseDeferredReceiptV1(source));
      const window = receiptWindow(receipt, nowMs());
      if (window !== "open") throw transitionError(window, window === "expired" ? "the receipt's resume window has passed" : "the receipt is not due yet");
      if (typeof freshProcess !== "function") throw new TypeError("resume needs the fresh process as a function");
      if (!mayRun(await port.state(receipt))) return { status: "blocked" };
      return checkedResult(await freshProcess(receipt.bindings, receipt.fresh_approval_required), receipt);
    }
  };
}

// library/resumable-host.js
var PORT_METHODS = ["schedule", "state", "cancel"];
function createResumableDeferralHost(port, second) {
  const present = PORT_METHODS.filter((name) => typeof port?.[name] === "function");
  if (present.length === PORT_METHODS.length) return createPortHost(port, second);
  if (present.length > 0 || typeof second === "function") {
    const missing = PORT_METHODS.filter((name) => !present.includes(name));
    throw new TypeError(`a durable port needs schedule, state and cancel methods; missing: ${missing.join(", ")}`);
  }
  return createClientHost(port, second);
}

// library/key-store.js
var { mkdirSync, readFileSync, renameSync, writeFileSync } = builtin("node:fs");
var { homedir } = builtin("node:os");
var { join } = builtin("node:path");
var { randomBytes } = builtin("node:crypto");
var KEY = /^[0-9a-f]{64}$/;
function defaultKeyStoreDir(env2 = process.env) {
  const state = env2.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(state, "deferral", "handles");
}
function checkedKey(key) {
  if (!KEY.test(key)) throw new TypeError(`a key store key is a receipt digest (64 lowercase hex), got ${JSON.stringify(key)}`);
  return key;
}
function createFileKeyStore(dir = defaultKeyStoreDir()) {
  const file = (key) => join(dir, `${checkedKey(key)}.json`);
  return {
    dir,
    async get(key) {
      let text;
      try {
        text = readFileSync(file(key), "utf8");
      } catch (err) {
        if (err.code === "ENOENT") return void 0;
        throw err;
      }
      return JSON.parse(text);
    },
    async set(key, value) {
      const target = file(key);
      mkdirSync(dir, { recursive: true, mode: 448 });
      const temporary = `${target}.${randomBytes(6).toString("hex")}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(value)}
`, { mode: 384, flag: "wx" });
      renameSync(temporary, target);
    }
  };
}

// library/serve-port.js
var HANDOFF = { disposition: "handoff", mode: "governed-handoff", wakeup_digest: null, cancellation_digest: null };
function portState(deferral) {
  if (deferral.state === "cancelled") return deferral.cause === "expired" ? "expired" : "cancelled";
  if (deferral.state === "ready") return "deferred";
  return deferral.state;
}
function recordedDigest(receipt) {
  return receiptDigest({ ...parseDeferredReceiptV1(receipt), ownership: HANDOFF });
}
function createServePort(options = {}) {
  const { launch, maxReentries, keyStore = createFileKeyStore() } = options;
  if (typeof launch !== "string" || launch === "") {
    throw new PortError(0, "invalid-launch", "the port needs a launch target: exec:COMMAND or workflow-dispatch:OWNER/REPO/WORKFLOW@REF");
  }
  if (typeof keyStore?.get !== "function" || typeof keyStore?.set !== "function") {
    throw new PortError(0, "invalid-key-store", "the key store needs get(key) and set(key, value) methods");
  }
  const client = options.client ?? createPortClient(options);
  async function deferralOf(receipt) {
    const digest = recordedDigest(receipt);
    const known = await keyStore.get(digest);
    return known?.id ? client.get(known.id) : client.getByReceipt(digest);
  }
  return {
    url: client.url,
    /** Records a handoff receipt (once per receipt digest); answers the retained digests. */
    async schedule(receipt) {
      const handoff = parseDeferredReceiptV1(receipt);
      if (handoff.ownership.disposition !== "handoff") {
        throw new PortError(0, "already-retained", "schedule takes the governed-handoff receipt the gate emitted");
      }
      const digest = receiptDigest(handoff);
      const known = await keyStore.get(digest);
      if (known?.wakeupDigest) return { wakeupDigest: known.wakeupDigest, cancellationDigest: known.cancellationDigest };
      const answer = await client.record({ receipt: handoff, launch, maxReentries });
      if (answer.already_recorded && answer.receipt === void 0) {
        throw new PortError(0, "already-recorded", `deferral ${answer.id} recorded this receipt before, through another port; its retained receipt and cancellation handle are where it was scheduled`);
      }
      const retained2 = parseDeferredReceiptV1(answer.receipt);
      if (retained2.ownership.disposition !== "retained" || recordedDigest(retained2) !== digest) {
        throw new PortError(0, "unexpected-receipt", "the host answered a receipt that is not the retained form of the one sent");
      }
      const handles = { wakeupDigest: retained2.ownership.wakeup_digest, cancellationDigest: retained2.ownership.cancellation_digest };
      if (answer.cancellation_handle) {
        try {
          await keyStore.set(digest, { id: answer.id, cancellationHandle: answer.cancellation_handle, ...handles });
        } catch (err) {
          throw new PortError(0, "key-store-failed", `deferral ${answer.id} is recorded, but its cancellation handle could not be kept: ${err.message}`);
        }
      }
      return handles;
    },
    /** deferred | resumable | cancelled | expired (and complete | blocked once it ended). */
    async state(receipt) {
      return portState(await deferralOf(receipt));
    },
    /** Cancels with the kept handle; cancelling a cancelled deferral again changes nothing. */
    async cancel(receipt) {
      const digest = recordedDigest(receipt);
      const known = await keyStore.get(digest);
      if (!known?.cancellationHandle) {
        throw new PortError(0, "no-cancellation-handle", "this port keeps no cancellation handle for the receipt: cancel where it was scheduled, or with deferral-host cancel and the handle");
      }
      const id = known.id ?? (await client.getByReceipt(digest)).id;
      try {
        await client.cancel(id, known.cancellationHandle);
      } catch (err) {
        if (err.code !== "illegal-transition" || (await client.get(id)).state !== "cancelled") throw err;
      }
    }
  };
}

// library/decide.js
function decide(input) {
  return call("decide", input).decision;
}
export {
  INVALID_RECEIPT,
  INVALID_TRANSITION,
  PortError,
  createFileKeyStore,
  createGovernedHandoffReceipt,
  createPortClient,
  createResumableDeferralHost,
  createServePort,
  decide,
  defaultKeyStoreDir,
  lifecycleTransition,
  parseDeferredReceiptV1,
  receiptDigest,
  validateReceipt2 as validateReceipt
};
