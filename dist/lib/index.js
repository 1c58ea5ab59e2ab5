// Bundled by scripts/build-dist.sh from library/: edit those.
import {
  INVALID_RECEIPT,
  INVALID_TRANSITION,
  PortError,
  ask,
  builtin,
  call,
  createGovernedHandoffReceipt,
  encode,
  lifecycleTransition,
  parseDeferredReceiptV1,
  receiptDigest,
  receiptOf,
  validateReceipt
} from "./chunk-FOZK652G.js";

// shared/http.js
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

// library/host-port.js
var typed = (value) => value === void 0 || value === null ? null : { kind: typeof value, text: String(value) };
var orderFields = ({ priority, fairnessKey } = {}) => ask("record_order", { priority: typed(priority), fairness_key: typed(fairnessKey) }).place;
var receiptMember = (receipt) => typeof receipt === "string" ? receipt.trim() : receipt;
function createPortClient({ url, token, timeoutMs, env = process.env } = {}) {
  const { timeout_ms: wait, max_bytes: maxBytes } = ask("port_client", { url: url ?? null, token: Boolean(token), timeout_ms: timeoutMs ?? null });
  const base = new URL(url);
  const root = base.href.replace(/\/+$/, "");
  async function call2(method, path, body) {
    const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (body !== void 0) {
      headers["content-type"] = "application/json";
      headers["content-length"] = String(Buffer.byteLength(body));
    }
    let answer;
    try {
      answer = await request(`${root}${path}`, { method, headers, body, timeoutMs: wait, maxBytes, env });
    } catch (err) {
      ask("port_failure", { status: 0, origin: base.origin, why: err.message, code: err.code ?? null });
    }
    let json = null;
    try {
      json = JSON.parse(answer.body);
    } catch {
    }
    if (answer.status >= 200 && answer.status < 300 && json && typeof json === "object") return json;
    const error = json?.error;
    if (error?.code) throw new PortError(answer.status, error.code, error.message ?? error.code, error.path);
    return ask("port_failure", { status: answer.status });
  }
  const at = (id, action = "") => `/v1/deferrals/${encodeURIComponent(id)}${action}`;
  return {
    url: base.origin,
    /** Records a receipt; `priority` and `fairnessKey` are kept by the host beside it, not in it. */
    record: async ({ receipt, launch, maxReentries, priority, fairnessKey }) => {
      const place = orderFields({ priority, fairnessKey });
      const body = { receipt: receiptMember(receipt), launch, max_reentries: maxReentries, priority: place.priority, fairness_key: place.fairness_key };
      return call2("POST", "/v1/deferrals", JSON.stringify(body));
    },
    get: (id) => call2("GET", at(id)),
    /** The deferral recorded from a receipt, by the receipt's digest (as `get` answers it). */
    getByReceipt: (digest) => call2("GET", `/v1/receipts/${encodeURIComponent(digest)}`),
    cancel: (id, handle) => call2("POST", at(id, "/cancel"), JSON.stringify({ handle })),
    /** A blocked deferral started again as a new one (`deferral-host retry`); launch and maxReentries optional. */
    retry: (id, { handle, launch, maxReentries }) => call2("POST", at(id, "/retry"), JSON.stringify({ handle, launch, max_reentries: maxReentries })),
    claim: (id, wakeupHandle) => call2("POST", at(id, "/claim"), JSON.stringify({ wakeup_handle: wakeupHandle })),
    outcome: (id, { attempt, outcome, handle, receipt }) => {
      return call2("POST", at(id, "/outcome"), JSON.stringify({ attempt, outcome, handle, receipt: receipt === void 0 ? void 0 : receiptMember(receipt) }));
    },
    /** Asks a pool to admit a plan's cost (POST /v1/admissions); the core checks and writes the body. */
    admit: ({ pool, cost, rate } = {}) => call2("POST", "/v1/admissions", ask("pool_admit", { pool: pool ?? null, cost: cost ?? null, rate: rate ?? null }).body),
    /** Gives an admission back (POST /v1/admissions/ID/release), with the rate state seen last if given. */
    release: (admission, rate) => {
      const { body } = ask("pool_release", { admission: admission ?? null, rate: rate ?? null });
      return call2("POST", `/v1/admissions/${encodeURIComponent(admission)}/release`, body);
    }
  };
}

// library/client-host.js
function createClientHost(port, options = {}) {
  orderFields(options);
  const client = typeof port?.record === "function" ? port : createPortClient(port);
  return {
    /**
     * Hands a handoff receipt to the host: answers {id, receipt (retained), cancellationHandle}.
     * `priority` and `fairnessKey` are kept by the host beside the receipt, never in it.
     */
    async retain(receipt, {
      launch = options.launch,
      maxReentries = options.maxReentries,
      priority = options.priority,
      fairnessKey = options.fairnessKey
    } = {}) {
      ask("client_retain", { receipt: encode(receipt), launch: launch ?? null });
      const answer = await client.record({ receipt, launch, maxReentries, priority, fairnessKey });
      const retained = receiptOf(ask("client_retained", { sent: encode(receipt), answer: encode(answer.receipt) }));
      return { id: answer.id, receipt: retained, cancellationHandle: answer.cancellation_handle };
    },
    /** The deferral as `deferral-host status --json ID` prints it. */
    status: (id) => client.get(id),
    /** Cancels with the cancellation handle; a terminal deferral is refused without a request. */
    async cancel(id, handle) {
      ask("client_cancel", { deferral: await client.get(id) });
      return client.cancel(id, handle);
    },
    /**
     * Starts a blocked deferral again as a new deferral linked to it, proven by its cancellation
     * handle, optionally with a corrected launch target: answers {id, retryOf, receipt}. The
     * same cancellation handle holds for the new deferral.
     */
    async retry(id, handle, { launch, maxReentries } = {}) {
      const answer = await client.retry(id, { handle, launch, maxReentries });
      return { id: answer.id, retryOf: answer.retry_of, receipt: answer.receipt };
    },
    /** Proves a launch's claim with its wake-up handle: answers {id, attempt, receipt, ...}. */
    claim: (id, wakeupHandle) => client.claim(id, wakeupHandle),
    /**
     * A fresh process reports how its attempt ended: the lifecycle step and the new receipt
     * (for `deferred`) are checked locally, the claim is proven with the wake-up handle, then
     * the outcome is recorded. Answers {id, state, cause[, receipt]}.
     */
    async resume(id, { attempt, wakeupHandle, outcome, receipt } = {}) {
      const given = receipt === void 0 ? null : encode(receipt);
      const { event } = ask("client_outcome", { outcome: outcome ?? null, receipt: given });
      ask("client_step", { deferral: await client.get(id), event });
      const claim = await client.claim(id, wakeupHandle);
      ask("client_claim", { attempt: attempt ?? null, current: claim.attempt });
      return client.outcome(id, { attempt: claim.attempt, outcome, handle: wakeupHandle, receipt });
    }
  };
}

// library/port-host.js
function createPortHost(port, nowMs = Date.now) {
  return {
    /** Schedules a governed-handoff receipt with the port; answers its retained form. */
    async retain(source) {
      const handoff = receiptOf(ask("retain", { receipt: encode(source), now: nowMs() }));
      const handles = await port.schedule(handoff);
      return receiptOf(ask("retained", { receipt: JSON.stringify(handoff), handles: encode(handles) }));
    },
    /** Cancels a retained receipt through the port. */
    async cancel(source) {
      await port.cancel(receiptOf(ask("cancel", { receipt: encode(source) })));
    },
    /**
     * Runs `freshProcess(bindings, freshApprovalRequired)` once when the receipt is due and
     * the port says it is resumable; answers {status: 'blocked'} when the port says otherwise.
     */
    async resume(source, freshProcess) {
      const receipt = receiptOf(ask("resume", { receipt: encode(source), now: nowMs(), fresh: typeof freshProcess }));
      const gate = ask("may_run", { state: await port.state(receipt) ?? null });
      if (!gate.run) return gate.result;
      const result = await freshProcess(receipt.bindings, receipt.fresh_approval_required);
      const checked = ask("outcome", { previous: JSON.stringify(receipt), status: result?.status ?? null, next: encode(result?.receipt) });
      return checked.receipt ? { ...checked.result, receipt: receiptOf(checked) } : checked.result;
    }
  };
}

// library/resumable-host.js
var PORT_METHODS = ["schedule", "state", "cancel"];
function createResumableDeferralHost(port, second) {
  const methods = Object.fromEntries(PORT_METHODS.map((name) => [name, typeof port?.[name] === "function"]));
  const { durable } = ask("host_form", { methods, second: typeof second });
  return durable ? createPortHost(port, second) : createClientHost(port, second);
}

// library/key-store.js
var { mkdirSync, readFileSync, renameSync, writeFileSync } = builtin("node:fs");
var { homedir } = builtin("node:os");
var { join } = builtin("node:path");
var { randomBytes } = builtin("node:crypto");
function defaultKeyStoreDir(env = process.env) {
  const state = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(state, "deferral", "handles");
}
function checkedKey(key) {
  ask("store_key", { key: key ?? null });
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
function createServePort(options = {}) {
  const { launch, maxReentries, priority, fairnessKey, keyStore = createFileKeyStore() } = options;
  const usable = typeof keyStore?.get === "function" && typeof keyStore?.set === "function";
  ask("serve_port", { launch: launch ?? null, key_store: usable });
  orderFields({ priority, fairnessKey });
  const client = options.client ?? createPortClient(options);
  const recordedDigest = (receipt) => ask("recorded_digest", { receipt: encode(receipt) }).digest;
  const checked = (found, needId = false) => {
    ask("port_deferral", { id: found?.id ?? (needId ? "" : null), state: found?.state ?? null });
    return found;
  };
  async function deferralOf(receipt) {
    const digest = recordedDigest(receipt);
    const known = await keyStore.get(digest);
    if (known?.id) ask("port_deferral", { id: known.id });
    return checked(known?.id ? await client.get(known.id) : await client.getByReceipt(digest));
  }
  return {
    url: client.url,
    /** Records a handoff receipt (once per receipt digest); answers the retained digests. */
    async schedule(receipt) {
      const { receipt: handoff, digest } = ask("schedule", { receipt: encode(receipt) });
      const known = await keyStore.get(digest);
      if (known?.wakeupDigest) return { wakeupDigest: known.wakeupDigest, cancellationDigest: known.cancellationDigest };
      const answer = await client.record({ receipt: handoff, launch, maxReentries, priority, fairnessKey });
      const { handles } = ask("scheduled", {
        digest,
        id: answer.id ?? null,
        already_recorded: answer.already_recorded === true,
        receipt: answer.receipt === void 0 ? null : encode(answer.receipt),
        cancellation_handle: answer.cancellation_handle ?? null
      });
      if (answer.cancellation_handle) {
        try {
          await keyStore.set(digest, { id: answer.id, cancellationHandle: answer.cancellation_handle, ...handles });
        } catch (err) {
          ask("key_store_failed", { id: answer.id, why: err.message });
        }
      }
      return handles;
    },
    /** deferred | resumable | cancelled | expired (and complete | blocked once it ended). */
    async state(receipt) {
      const { state, cause } = await deferralOf(receipt);
      return ask("port_state", { state, cause: cause ?? null }).state;
    },
    /**
     * Asks `pool` to admit a plan's `cost` ({rest, graphql, content}) with the `rate` state the
     * caller read ({observed_ms, rest?, graphql?}, each {limit, remaining, reserve, reset_ms}).
     * Answers {admitted: true, admission, pool, expiresMs, window} or {admitted: false, pool,
     * reason, window}, checked before it is returned.
     */
    async admit({ pool, cost, rate } = {}) {
      const answer = await client.admit({ pool, cost, rate });
      return ask("pool_admitted", { pool: pool ?? null, answer }).admission;
    },
    /** Gives an admission back, with the rate state seen last if given: {released, already}. */
    async release(admission, rate) {
      const answer = await client.release(admission, rate);
      return ask("pool_released", { answer }).release;
    },
    /** Cancels with the kept handle; cancelling a cancelled deferral again changes nothing. */
    async cancel(receipt) {
      const digest = recordedDigest(receipt);
      const known = await keyStore.get(digest);
      ask("cancel_handle", { known: Boolean(known?.cancellationHandle) });
      if (known.id) ask("port_deferral", { id: known.id });
      const id = known.id ?? checked(await client.getByReceipt(digest), true).id;
      try {
        await client.cancel(id, known.cancellationHandle);
      } catch (err) {
        const after = await client.get(id).catch(() => null);
        if (!ask("cancel_refused", { code: err.code ?? null, state: after?.state ?? null }).ignore) throw err;
      }
    }
  };
}

// library/index.js
var decide = (input) => call("decide", input).decision;
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
  validateReceipt
};
