// Bundled by scripts/build-dist.sh from library/: edit those.
import {
  ask,
  builtin,
  call,
  parseDeferredReceiptV1
} from "../chunk-FOZK652G.js";

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
var { appendFileSync } = builtin("node:fs");
var bodyText = (data) => data === void 0 || data === null ? "" : typeof data === "string" ? data : JSON.stringify(data);
function headerObject(headers) {
  if (!headers) return {};
  if (typeof headers.entries === "function" && typeof headers.get === "function") return Object.fromEntries(headers.entries());
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => typeof v === "string" || typeof v === "number"));
}
function requestOf(options) {
  const { method, url, query, variables, operationName, data } = options;
  const text = (v) => typeof v === "string" ? v : void 0;
  const plain = (v) => v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype ? v : void 0;
  return ask("octokit_request", {
    options: { method: text(method), url: text(url), query: text(query), variables: plain(variables), operationName: text(operationName), data: text(data) ?? plain(data) }
  });
}
function createGate(options = {}, env = process.env) {
  const { port, ...rest } = options;
  const now = options.now ?? Date.now;
  const runner = Object.fromEntries(ask("octokit_env").names.map((name) => [name, env[name] ?? null]));
  const portState = port === void 0 || port === null ? "none" : typeof port.admit === "function" && typeof port.release === "function" ? "usable" : "unusable";
  const { base, plan, bindings, pool } = ask("octokit_gate", { options: rest, port: portState, env: runner, now_ms: now() });
  let snapshot = null;
  let ledger = null;
  let planAdmitted = plan === null;
  let admission = null;
  let admitted = null;
  let spent = { rest: 0, graphql: 0, content: 0 };
  let admitting = null;
  const inFlight = {};
  const decideNow = (requestPlan, bucket = null) => ask("octokit_decide", {
    input: { ...base, rate: snapshot, ledger, plan: requestPlan, now_ms: now() },
    in_flight: inFlight,
    bucket
  });
  function enforce({ decision, go }, cause, refused) {
    if (go) return;
    if (!decision.receipt) throw new DeferralBlockedError(decision);
    const receipt = parseDeferredReceiptV1({ ...decision.receipt, bindings });
    const why = decision.diagnostics.map((d) => d.message).join("; ");
    const error = new DeferredError(receipt, `${decision.status} (${receipt.reason}): ${cause ?? why}; resume after ${new Date(receipt.resume_after_ms).toISOString()}`, decision.status);
    if (refused) Object.assign(error, { pool: refused.pool, poolReason: refused.reason });
    throw error;
  }
  function report() {
    const path = env.DEFERRAL_REPORT_FILE;
    if (!path) return;
    const { line } = ask("octokit_report", { input: { ...base, rate: snapshot, ledger, plan, now_ms: now() }, pool, admission });
    if (!line) return;
    try {
      appendFileSync(path, `${line}
`, "utf8");
    } catch (err) {
      process.emitWarning(`deferral: could not append to ${path}: ${err.message}`);
    }
  }
  async function admitPlan() {
    const first = decideNow(plan);
    enforce(first);
    if (pool !== null) {
      const { cost, rate } = ask("octokit_admission", { decision: first.decision, now_ms: now() });
      const answer = await port.admit({ pool, cost, rate });
      if (!answer.admitted) {
        snapshot = ask("octokit_fold", { snapshot, window: answer.window, clock_offset_ms: first.decision.clock_offset_ms, now_ms: now() }).snapshot;
        const again = decideNow(plan);
        if (again.go) ask("octokit_disagrees", { pool });
        enforce(again, `pool ${pool} refused: ${answer.reason}`, answer);
      }
      admission = answer.admission;
      admitted = cost;
    }
    planAdmitted = true;
    report();
  }
  return {
    hasRateState: () => snapshot !== null,
    /** Records the answer of GET /rate_limit (200, or 404 when the server does not rate-limit). */
    rateLimitAnswer(status, data) {
      const parsed = call("parse_rate_limit", { status, body: bodyText(data) });
      if (!parsed.ok) throw new DeferralBlockedError(ask("octokit_unreadable", { error: parsed.error }).decision);
      snapshot = parsed.snapshot;
    },
    /** Before the first request: the plan admitted once (shared by concurrent first requests). */
    async admitPlan() {
      if (planAdmitted) return;
      admitting ??= admitPlan().finally(() => {
        admitting = null;
      });
      await admitting;
    },
    /** The pool's admission id of the plan, or null. */
    admission: () => admission,
    /**
     * Gives the pool's admission back, with the rate state seen last; answers the port's
     * {released, already}, or null when there is nothing to release.
     */
    async release() {
      if (admission === null) return null;
      const { rate } = ask("octokit_admission", { decision: decideNow(null).decision, now_ms: now() });
      const id = admission;
      admission = null;
      return port.release(id, rate);
    },
    /**
     * Before a request, once the plan is admitted: this request's own cost with what is in
     * flight counted, and with a pool within what the pool admitted (PortError
     * `admission-spent` beyond it, `admission-released` after a release). Answers `release`,
     * to call once the request has its answer.
     */
    admit(request) {
      const answer = decideNow(request.plan, request.bucket);
      enforce(answer);
      if (pool !== null) spent = ask("octokit_spend", { pool, admission, admitted, spent, decision: answer.decision }).spent;
      for (const [bucket, n] of Object.entries(answer.spends)) inFlight[bucket] = (inFlight[bucket] ?? 0) + n;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        for (const [bucket, n] of Object.entries(answer.spends)) inFlight[bucket] -= n;
      };
    },
    /**
     * After an answer (a response or a RequestError's): records its rate headers, and throws
     * DeferredError when the core classifies it as a primary or secondary limit.
     */
    observe(status, headers, data, request) {
      const seen = ask("octokit_observe", { ledger, snapshot, path: request.path, status, headers: headerObject(headers), body: bodyText(data), now_ms: now() });
      ledger = seen.ledger;
      snapshot = seen.snapshot;
      if (!seen.limited) return;
      const bucket = seen.bucket ? ` (${seen.bucket})` : "";
      enforce(decideNow(request.plan, request.bucket), `GitHub answered ${status}, a ${seen.kind} rate limit${bucket}`);
    }
  };
}

// library/octokit/index.js
var WRAPPED = /* @__PURE__ */ Symbol.for("deferral.octokit.gate");
function wrapOctokit(octokit, options = {}) {
  Object.defineProperty(octokit, "deferral", { value: gateOctokit(octokit, options) });
  return octokit;
}
function gateOctokit(octokit, options) {
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
  async function send(request, options2, known, release) {
    let answer;
    try {
      answer = await request(options2);
    } catch (err) {
      release();
      if (err?.response) gate.observe(err.status, err.response.headers, err.response.data, known);
      throw err;
    }
    release();
    gate.observe(answer.status, answer.headers, answer.data, known);
    return answer;
  }
  octokit.hook.wrap("request", async (request, options2) => {
    const known = requestOf(options2);
    if (known.free) return send(request, options2, known, () => {
    });
    if (!gate.hasRateState()) await readRateState();
    await gate.admitPlan();
    return send(request, options2, known, gate.admit(known));
  });
  Object.defineProperty(octokit, WRAPPED, { value: gate });
  return Object.freeze({ admission: () => gate.admission(), release: () => gate.release() });
}
function deferral(octokit, octokitOptions = {}) {
  return { deferral: gateOctokit(octokit, octokitOptions.deferral ?? {}) };
}
export {
  DeferralBlockedError,
  DeferredError,
  deferral,
  wrapOctokit
};
