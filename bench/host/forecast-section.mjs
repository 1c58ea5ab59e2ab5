// The figures of bench/host/forecast.sh as BENCHMARKS.md shows them: a summary row and a
// section (used by bench/run.mjs).
const reads = [
  ['record_answer', 'the record answer (`POST /v1/deferrals`)'],
  ['pools', '`GET /v1/pools`'],
  ['deferral', '`GET /v1/deferrals/ID`'],
  ['page', 'the status page (`GET /`)'],
  ['metrics', '`GET /metrics`'],
];

export function forecastRows(f) {
  const met = f.goal_met ? 'met' : '**not met**';
  const summary = `| slowest read that forecasts a pool (p95), 3 s learned window, a deferral 30 days away, ${f.large_keys.toLocaleString('en-US')} keys | ${f.large_worst_p95_ms} ms | under ${f.goal_ms} ms | ${met} |`;
  const rows = reads.map(([key, label]) =>
    `| ${label} | ${f.small[key].median_ms} ms | ${f.large[key].median_ms} ms | ${f.large[key].p95_ms} ms | ${f.large[key].max_ms} ms | ${f.large_over_small_median[key]}x |`);
  const section = `## Reads that forecast a pool

\`bench/host/forecast.sh\` (release build; \`host/examples/forecast_bench.rs\`): every read that forecasts a pool, ${f.requests} times each on
new connections to \`serve\`, on a small pool (10 deferrals of one key: the baseline) and on a large one
(${f.large_keys.toLocaleString('en-US')} deferrals due now, each with its own fairness key, and one 30 days away), both behind a window
learned ${f.window_length_ms / 1000} s long (45 requests, reserve 5: 4 jobs a window).

| read | small, median | large, median | large, p95 | large, max | large / small |
|---|---|---|---|---|---|
${rows.join('\n')}

Goal: every read of the large pool under ${f.goal_ms} ms: ${met} (slowest p95 ${f.large_worst_p95_ms} ms).
`;
  return { summary, section };
}
