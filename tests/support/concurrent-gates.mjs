// Many runners gating at once on one quota: N `node dist/cli.js gate` processes started
// together, each with a durable port (and a pool, unless told otherwise), against one loopback
// GitHub whose GET /rate_limit (GitHub's documented shape) says the same to all of them. Used by
// the end-to-end test (tests/node/admission-e2e.test.mjs) and the benchmark
// (bench/host/runners.mjs).
import { performance } from 'node:perf_hooks';
import { startFakeGitHub, TEST_TOKEN } from './fake-github.mjs';
import { runCli } from './run-action.mjs';

const bucket = (limit, remaining, reset) => ({ limit, used: limit - remaining, remaining, reset });

/** A GitHub stand-in whose core bucket has `remaining` of `limit`, resetting in `resetInS`. */
export function startQuota({ limit = 5000, remaining, resetInS = 1800 }) {
  const reset = Math.floor(Date.now() / 1000) + resetInS;
  return startFakeGitHub({
    scenario: () => {
      const resources = { core: bucket(limit, remaining, reset), graphql: bucket(limit, limit - 10, reset), search: bucket(30, 30, reset) };
      return {
        status: 200,
        headers: { 'content-type': 'application/json; charset=utf-8', date: new Date().toUTCString(), 'x-ratelimit-limit': String(limit), 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(reset), 'x-ratelimit-resource': 'core' },
        body: { resources, rate: resources.core },
      };
    },
  });
}

/** A plan of `count` REST writes that create no content. */
export const writes = (count) => ({ rest: [{ method: 'PATCH', route: '/repos/{owner}/{repo}/issues/{issue_number}', count }] });

/**
 * Runs `n` gates at once. Each binds its own scope (`${scope}-${i}`), so each receipt is its
 * own deferral. Resolves with {runs: [{status, json, ms}], ms}: the exit status and JSON line of
 * each gate, and the wall time of the whole wave.
 */
export async function concurrentGates({ n, github, port, token, launch, plan, pool = null, scope = 'runner' }) {
  const argv = (i) => ['gate', '--api-url', github, '--plan', JSON.stringify(plan), '--scope', `${scope}-${i}`,
    '--coordinator-url', port, '--coordinator-launch', launch, '--resume-jitter', '0s', ...(pool ? ['--coordinator-pool', pool] : [])];
  const env = { GITHUB_TOKEN: TEST_TOKEN, DEFERRAL_COORDINATOR_TOKEN: token };
  const started = performance.now();
  const runs = await Promise.all(Array.from({ length: n }, async (_, i) => {
    const at = performance.now();
    const run = await runCli(argv(i), { env });
    return { status: run.status, json: run.json, stderr: run.stderr, ms: performance.now() - at };
  }));
  return { runs, ms: performance.now() - started };
}

/** The counts of a wave: admitted (exit 0), deferred (exit 6), anything else. */
export function tally(runs) {
  const admitted = runs.filter((r) => r.status === 0).length;
  const deferred = runs.filter((r) => r.status === 6).length;
  return { admitted, deferred, other: runs.length - admitted - deferred };
}
