// Benchmark of one admission across runners (issue 19 item 4): waves of N gates started at once
// (`node dist/cli.js gate`, one process each, as N runners) against the real `deferral-host
// serve` (SQLite) and one loopback GitHub that tells all of them the same rate state, with a
// pool and, side by side in the same run, without one (the port only, as before). Prints one
// JSON document on stdout, progress on stderr.
//
//   node bench/host/runners.mjs [--gates 12,24] [--waves 5] [--single 21] [--remaining 1200] [--cost 100]
//
// With 1,200 of 5,000 left and a reserve of 500 (10%), `(remaining - 500) / cost` plans fit.
// Each wave of a size uses a pool of its own, so no admission of an earlier wave counts.
// `--single N`: N lone gates each way, alternating (what one admission adds to one gate run:
// a request to the port and a crossing into the core), each in a pool of its own.
import { performance } from 'node:perf_hooks';
import { startServe } from '../../tests/support/host-serve.mjs';
import { concurrentGates, startQuota, tally, writes } from '../../tests/support/concurrent-gates.mjs';
import { median } from '../util.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const sizes = flag('gates', '12,24').split(',').map(Number);
const waves = Number(flag('waves', '5'));
const remaining = Number(flag('remaining', '1200'));
const cost = Number(flag('cost', '100'));
const single = Number(flag('single', '21'));
const fits = Math.floor((remaining - Math.ceil(5000 * 0.1)) / cost);
const say = (text) => process.stderr.write(`runners: ${text}\n`);

const serve = await startServe({ allowLaunch: ['exec:'] });
const github = await startQuota({ remaining });
const round = (x) => Math.round(x * 100) / 100;
const results = [];
try {
  for (const n of sizes) {
    const pooled = [];
    const bare = [];
    for (let w = 0; w < waves; w++) {
      // Alternate which side goes first, so the machine's drift does not favour one.
      const order = w % 2 ? ['bare', 'pooled'] : ['pooled', 'bare'];
      for (const side of order) {
        const pool = side === 'pooled' ? `bench-${n}-${w}` : null;
        const wave = await concurrentGates({ n, github: github.url, port: serve.url, token: serve.token, launch: 'exec:/bin/true', plan: writes(cost), pool, scope: `bench-${side}-${n}-${w}` });
        const counts = tally(wave.runs);
        (side === 'pooled' ? pooled : bare).push({ ...counts, ms: wave.ms, gate_ms: median(wave.runs.map((r) => r.ms)) });
        say(`${n} gates, ${side}, wave ${w + 1}: ${counts.admitted} proceeded, ${counts.deferred} deferred, ${counts.other} other, ${Math.round(wave.ms)} ms`);
      }
    }
    const summary = (list) => ({
      proceeded: list.map((x) => x.admitted),
      deferred: list.map((x) => x.deferred),
      other: list.map((x) => x.other),
      wave_ms_median: round(median(list.map((x) => x.ms))),
      gate_ms_median: round(median(list.map((x) => x.gate_ms))),
    });
    const p = summary(pooled);
    const b = summary(bare);
    results.push({
      gates: n,
      fits,
      with_pool: { ...p, most_admitted: Math.max(...p.proceeded), least_admitted: Math.min(...p.proceeded), never_more_than_fits: p.proceeded.every((x) => x <= fits), share_of_fits_min: round(Math.min(...p.proceeded) / fits) },
      without_pool: { ...b, overrun_requests: Math.max(0, Math.max(...b.proceeded) * cost - (remaining - 500)) },
      wave_time_ratio: round(p.wave_ms_median / b.wave_ms_median),
    });
  }
  const lone = { pooled: [], bare: [] };
  for (let k = 0; k < single; k++) {
    for (const side of k % 2 ? ['bare', 'pooled'] : ['pooled', 'bare']) {
      const pool = side === 'pooled' ? `single-${k}` : null;
      const wave = await concurrentGates({ n: 1, github: github.url, port: serve.url, token: serve.token, launch: 'exec:/bin/true', plan: writes(cost), pool, scope: `single-${side}-${k}` });
      if (wave.runs[0].status !== 0) throw new Error(`a lone gate did not proceed: ${JSON.stringify(wave.runs[0].json)}`);
      lone[side].push(wave.runs[0].ms);
    }
  }
  if (single > 0) {
    const p = median(lone.pooled);
    const b = median(lone.bare);
    results.push({ gates: 1, runs: single, with_pool_ms_median: round(p), without_pool_ms_median: round(b), ratio: round(p / b) });
    say(`a lone gate: ${round(p)} ms with a pool, ${round(b)} ms without (median of ${single} each)`);
  }
} finally {
  await github.close();
  await serve.stop();
}
const started = new Date().toISOString();
process.stdout.write(`${JSON.stringify({ benchmark: 'runners', at: started, remaining, reserve: 500, cost, waves, github_requests: github.requests.length, results, node: process.version, took_ms: Math.round(performance.now()) }, null, 1)}\n`);
