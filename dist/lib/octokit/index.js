// Bundled by scripts/build-dist.sh from library/: edit those.
import {
  call,
  parseDeferredReceiptV1
} from "../chunk-RGTCE74L.js";

// library/octokit/errors.js
var DeferredError = class extends Error {
  constructor(receipt, message) {
    super(message);
    this.name = "DeferredError";
    this.code = "deferred";
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
function defaultScope(env) {
  return {
    api: (env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, ""),
    repository: env.GITHUB_REPOSITORY || null,
    workflow: env.GITHUB_WORKFLOW_REF || null,
    job: env.GITHUB_JOB || null
  };
}
function policyOf(options) {
  const policy = {};
  if (options.restReserve !== void 0) policy.rest_reserve = options.restReserve;
  if (options.graphqlReserve !== void 0) policy.graphql_reserve = options.graphqlReserve;
  if (options.resumeBufferMs !== void 0) policy.resume_buffer_ms = options.resumeBufferMs;
  if (options.resumeWindowMs !== void 0) policy.resume_window_ms = options.resumeWindowMs;
  if (options.jitterMaxMs !== void 0) policy.jitter_max_ms = options.jitterMaxMs;
  return policy;
}
var bodyText = (data) => data === void 0 || data === null ? "" : typeof data === "string" ? data : JSON.stringify(data);
function headerObject(headers) {
  if (!headers) return {};
  if (typeof headers.entries === "function" && typeof headers.get === "function") return Object.fromEntries(headers.entries());
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => typeof v === "string" || typeof v === "number"));
}
function createGate(options = {}, env = process.env) {
  const now = options.now ?? Date.now;
  const base = {
    policy: policyOf(options),
    scope: options.scope ?? defaultScope(env),
    request: options.request ?? null,
    fresh_approval_required: options.freshApprovalRequired ?? true
  };
  const plan = options.plan ?? null;
  const decide = (fields) => call("decide", { ...base, ...fields }).decision;
  const shape = decide({ rate: { unlimited: true, resources: {} }, plan, now_ms: now() });
  if (shape.status === "error") {
    const why = shape.diagnostics.map((d) => d.message).join("; ");
    throw Object.assign(new TypeError(`invalid deferral options: ${why}`), { code: shape.code });
  }
  const { bindings } = shape;
  let snapshot = null;
  let ledger = null;
  let planAdmitted = plan === null;
  function decideNow(requestPlan2) {
    const at = now();
    let decision = decide({ rate: snapshot ?? { unlimited: false, resources: {} }, ledger, plan: requestPlan2, now_ms: at });
    if (decision.status === "error" && decision.code === "invalid-plan" && requestPlan2?.graphql) {
      decision = decide({ rate: snapshot ?? { unlimited: false, resources: {} }, ledger, plan: { graphql: [{ points: 1 }] }, now_ms: at });
    }
    return decision;
  }
  function enforce(decision, cause) {
    if (decision.status === "ready") return;
    if (decision.status !== "deferred") throw new DeferralBlockedError(decision);
    const receipt = parseDeferredReceiptV1({ ...decision.receipt, bindings });
    const why = decision.diagnostics.map((d) => d.message).join("; ");
    throw new DeferredError(receipt, `deferred (${receipt.reason}): ${cause ?? why}; resume after ${new Date(receipt.resume_after_ms).toISOString()}`);
  }
  return {
    hasRateState: () => snapshot !== null,
    /** Records the answer of GET /rate_limit (200, or 404 when the server does not rate-limit). */
    rateLimitAnswer(status, data) {
      const parsed = call("parse_rate_limit", { status, body: bodyText(data) });
      if (!parsed.ok) {
        const { code, message } = parsed.error;
        throw new DeferralBlockedError({ status: "error", code, diagnostics: [{ code, message: `GET /rate_limit answered what the core cannot read: ${message}` }] });
      }
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
      if (!["primary-rest", "primary-graphql", "secondary"].includes(seen.kind)) return;
      const decision = decideNow(null);
      if (decision.status === "ready") return;
      enforce(decision, `GitHub answered ${status}, a ${seen.kind} rate limit`);
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
  if (typeof octokit?.hook?.wrap !== "function" || typeof octokit.request !== "function") {
    throw new TypeError("wrapOctokit needs an Octokit instance (with hook and request)");
  }
  if (octokit[WRAPPED]) throw new TypeError("this Octokit instance is already gated by deferral");
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
  octokit.hook.wrap("request", async (request, options2) => {
    if (isRateLimitRequest(options2)) {
      try {
        const answer2 = await request(options2);
        gate.observe(answer2.status, answer2.headers, answer2.data, requestPath(options2));
        return answer2;
      } catch (err) {
        if (err?.response) gate.observe(err.status, err.response.headers, err.response.data, requestPath(options2));
        throw err;
      }
    }
    if (!gate.hasRateState()) await readRateState();
    gate.admit(requestPlan(options2));
    let answer;
    try {
      answer = await request(options2);
    } catch (err) {
      if (err?.response) gate.observe(err.status, err.response.headers, err.response.data, requestPath(options2));
      throw err;
    }
    gate.observe(answer.status, answer.headers, answer.data, requestPath(options2));
    return answer;
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
