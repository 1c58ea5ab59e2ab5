// Bundled by scripts/build-dist.sh from library/: edit those.
import {
  ask,
  call,
  parseDeferredReceiptV1
} from "../chunk-3DET3WRD.js";

// library/octokit/errors.js
var DeferredError = class extends Error {
  constructor(receipt, message, code) {
    super(message);
    this.name = "DeferredError";
    this.code = code;
    this.receipt = receipt;
    this.reason = receipt.reason;
    this.resumeAfterMs = receipt.resume_after_ms;
    this.resumeByMs = receipt.resume_by_ms;
    this.resumeAfter = new Date(receipt.resume_after_ms).toISOString();
    this.resumeBy = new Date(receipt.resume_by_ms).toISOString();
  }
};
var DeferralBlockedError = class extends Error {
  constructor(decision) {
    const first = decision.diagnostics.find((d) => d.code === decision.code) ?? decision.diagnostics[0];
    super(`${decision.status}: ${decision.code}${first ? `: ${first.message}` : ""}`);
    this.name = "DeferralBlockedError";
    this.status = decision.status;
    this.code = decision.code;
    this.diagnostics = decision.diagnostics;
  }
};

// library/octokit/gate.js
var bodyText = (data) => data === void 0 || data === null ? "" : typeof data === "string" ? data : JSON.stringify(data);
function headerObject(headers) {
  if (!headers) return {};
  if (typeof headers.entries === "function" && typeof headers.get === "function") return Object.fromEntries(headers.entries());
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => typeof v === "string" || typeof v === "number"));
}
function createGate(options = {}, env = process.env) {
  const now = options.now ?? Date.now;
  const runner = Object.fromEntries(ask("octokit_env").names.map((name) => [name, env[name] ?? null]));
  const { base, plan, bindings } = ask("octokit_gate", { options, env: runner, now_ms: now() });
  let snapshot = null;
  let ledger = null;
  let planAdmitted = plan === null;
  const decideNow = (requestPlan2) => ask("octokit_decide", { input: { ...base, rate: snapshot, ledger, plan: requestPlan2, now_ms: now() } });
  function enforce({ decision, go }, cause) {
    if (go) return;
    if (!decision.receipt) throw new DeferralBlockedError(decision);
    const receipt = parseDeferredReceiptV1({ ...decision.receipt, bindings });
    const why = decision.diagnostics.map((d) => d.message).join("; ");
    throw new DeferredError(receipt, `${decision.status} (${receipt.reason}): ${cause ?? why}; resume after ${new Date(receipt.resume_after_ms).toISOString()}`, decision.status);
  }
  return {
    hasRateState: () => snapshot !== null,
    /** Records the answer of GET /rate_limit (200, or 404 when the server does not rate-limit). */
    rateLimitAnswer(status, data) {
      const parsed = call("parse_rate_limit", { status, body: bodyText(data) });
      if (!parsed.ok) throw new DeferralBlockedError(ask("octokit_unreadable", { error: parsed.error }).decision);
      snapshot = parsed.snapshot;
    },
    /** Before a request: admits the work's plan once, then this request's own cost. */
    admit(requestPlan2) {
      if (!planAdmitted) {
        enforce(decideNow(plan));
        planAdmitted = true;
      }
      enforce(decideNow(requestPlan2));
    },
    /**
     * After an answer (a response or a RequestError's): records its rate headers, and throws
     * DeferredError when the core classifies it as a primary or secondary limit.
     */
    observe(status, headers, data, path) {
      const seen = call("observe_response", { ledger, path, status, headers: headerObject(headers), body: bodyText(data), now_ms: now() });
      if (!seen.ok) return;
      ledger = seen.ledger;
      if (!ask("octokit_limited", { kind: seen.kind }).limited) return;
      enforce(decideNow(null), `GitHub answered ${status}, a ${seen.kind} rate limit`);
    }
  };
}

// library/octokit/request-plan.js
var pathOf = (url) => new URL(url, "http://route.invalid").pathname;
var requestPath = (options) => pathOf(options.url ?? "/");
function isRateLimitRequest(options) {
  return (options.method ?? "GET").toUpperCase() === "GET" && /\/rate_limit$/.test(pathOf(options.url ?? ""));
}
function requestPlan(options) {
  const method = (options.method ?? "GET").toUpperCase();
  const path = pathOf(options.url ?? "/");
  if (method === "POST" && /\/graphql$/.test(path) && typeof options.query === "string") {
    const entry = { query: options.query };
    if (options.variables && typeof options.variables === "object") entry.variables = options.variables;
    if (typeof options.operationName === "string") entry.operation_name = options.operationName;
    return { graphql: [entry] };
  }
  const route = (options.url ?? "/").startsWith("/") ? options.url.split("?")[0].replace(/\s/g, "") : path;
  return { rest: [{ method, route: route || "/" }] };
}

// library/octokit/index.js
var WRAPPED = /* @__PURE__ */ Symbol.for("deferral.octokit.gate");
function wrapOctokit(octokit, options = {}) {
  const instance = typeof octokit?.hook?.wrap === "function" && typeof octokit.request === "function";
  ask("octokit_wrap", { octokit: instance, wrapped: Boolean(instance && octokit[WRAPPED]) });
  const gate = createGate(options);
  async function fetchRateState() {
    let answer;
    try {
      answer = await octokit.request("GET /rate_limit");
    } catch (err) {
      if (err?.status === 404 && err.response) return gate.rateLimitAnswer(404, err.response.data);
      throw err;
    }
    return gate.rateLimitAnswer(answer.status, answer.data);
  }
  let reading = null;
  function readRateState() {
    reading ??= fetchRateState().finally(() => {
      reading = null;
    });
    return reading;
  }
  async function send(request, options2) {
    const path = requestPath(options2);
    let answer;
    try {
      answer = await request(options2);
    } catch (err) {
      if (err?.response) gate.observe(err.status, err.response.headers, err.response.data, path);
      throw err;
    }
    gate.observe(answer.status, answer.headers, answer.data, path);
    return answer;
  }
  octokit.hook.wrap("request", async (request, options2) => {
    if (!isRateLimitRequest(options2)) {
      if (!gate.hasRateState()) await readRateState();
      gate.admit(requestPlan(options2));
    }
    return send(request, options2);
  });
  Object.defineProperty(octokit, WRAPPED, { value: gate });
  return octokit;
}
function deferral(octokit, octokitOptions = {}) {
  wrapOctokit(octokit, octokitOptions.deferral ?? {});
  return {};
}
export {
  DeferralBlockedError,
  DeferredError,
  deferral,
  wrapOctokit
};
