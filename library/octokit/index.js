// `deferral/octokit`: stop instead of sleeping. A plugin for @octokit/core
// (`Octokit.plugin(deferral)`, options under `deferral:`) and `wrapOctokit(octokit, options)`
// for an instance that exists already (the `github` of actions/github-script). Before a request
// that spends quota the core decides on what GitHub said so far; below the reserve, or on a
// primary or secondary limit answer, it throws DeferredError with a receipt. Never a retry,
// never a sleep; every other request, answer and error passes through untouched.
import { ask } from '../ask.js';
import { createGate, requestOf } from './gate.js';

export { DeferredError, DeferralBlockedError } from './errors.js';

const WRAPPED = Symbol.for('deferral.octokit.gate');

/**
 * Hooks the gate into `octokit.hook` ('request'). Options: restReserve, graphqlReserve
 * (default '10%'), resumeBufferMs, resumeWindowMs, jitterMaxMs, scope (default: the Action's,
 * from GITHUB_* variables), request, plan (admitted whole before the first request),
 * freshApprovalRequired (default true), now (a clock, default Date.now), and together port
 * (createServePort(...)) and pool (a pool name): the plan is admitted in the pool before the
 * first request, and `octokit.deferral.release()` gives it back when the work is done. Answers
 * the octokit.
 */
export function wrapOctokit(octokit, options = {}) {
  Object.defineProperty(octokit, 'deferral', { value: gateOctokit(octokit, options) });
  return octokit;
}

/** Gates `octokit`; answers the caller's handle on the pool: `{admission(), release()}`. */
function gateOctokit(octokit, options) {
  const instance = typeof octokit?.hook?.wrap === 'function' && typeof octokit.request === 'function';
  ask('octokit_wrap', { octokit: instance, wrapped: Boolean(instance && octokit[WRAPPED]) });
  const gate = createGate(options);

  // Once per instance, shared by concurrent first requests: GET /rate_limit costs no quota. A
  // failed read is tried again by the next request, never in a loop.
  async function fetchRateState() {
    let answer;
    try {
      answer = await octokit.request('GET /rate_limit');
    } catch (err) {
      // GitHub Enterprise Server without rate limiting answers 404: the core reads it as unlimited.
      if (err?.status === 404 && err.response) return gate.rateLimitAnswer(404, err.response.data);
      throw err;
    }
    return gate.rateLimitAnswer(answer.status, answer.data);
  }
  let reading = null;
  function readRateState() {
    reading ??= fetchRateState().finally(() => { reading = null; });
    return reading;
  }

  // Every answer, or the RequestError's, tells the gate what GitHub said; a limit throws.
  // Its cost is given back as the answer is recorded (or the request failed without one).
  async function send(request, options, known, release) {
    let answer;
    try {
      answer = await request(options);
    } catch (err) {
      release();
      if (err?.response) gate.observe(err.status, err.response.headers, err.response.data, known);
      throw err;
    }
    release();
    gate.observe(answer.status, answer.headers, answer.data, known);
    return answer;
  }

  octokit.hook.wrap('request', async (request, options) => {
    const known = requestOf(options);
    // Reading the rate state spends no quota: it is observed, never gated.
    if (known.free) return send(request, options, known, () => {});
    if (!gate.hasRateState()) await readRateState();
    await gate.admitPlan();
    return send(request, options, known, gate.admit(known));
  });
  Object.defineProperty(octokit, WRAPPED, { value: gate });
  // The caller's one handle on the pool: which admission the plan holds, and giving it back.
  return Object.freeze({ admission: () => gate.admission(), release: () => gate.release() });
}

/** The @octokit/core plugin: `Octokit.plugin(deferral)`, options as `new MyOctokit({deferral: {...}})`. */
export function deferral(octokit, octokitOptions = {}) {
  return { deferral: gateOctokit(octokit, octokitOptions.deferral ?? {}) };
}
