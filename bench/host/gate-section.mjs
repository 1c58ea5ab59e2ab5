// The figures of bench/host/gate.sh as BENCHMARKS.md shows them: a summary row and a section
// (used by bench/run.mjs).
export function gateRows(g) {
  const cases = g.cases ?? [];
  const worst = cases.reduce((w, c) => Math.max(w, c.windows_used - c.windows_minimum), 0);
  const clean = cases.every((c) => c.jobs_approved === c.jobs && c.approvals === c.jobs && c.decisions_refused === 0 && c.approved_early === 0);
  const met = clean && worst <= 1 ? 'met' : '**not met**';
  const summary = `| environment gate: ${cases[0]?.jobs ?? '-'} jobs behind one quota (4 a window), ${cases.map((c) => c.case).join(' and ')}: each approved once, none early, windows over the minimum | ${clean ? 'yes' : 'no'}, ${worst} | each once, none early, at most 1 over | ${met} |`;
  const rows = cases.map((c) => `| ${c.case} | ${c.replicas} | ${c.approvals} (${c.jobs_approved} jobs) | ${c.decisions_refused} | ${c.approved_early} | ${c.windows_used} (minimum ${c.windows_minimum}) | ${c.approval_after_window_open_ms.median} / ${c.approval_after_window_open_ms.max} ms | ${(c.all_approved_after_first_delivery_ms / 1000).toFixed(1)} s | ${c.progress_reports ?? 0} | ${c.github_requests} (${c.github_requests_per_job.toFixed(2)} a job) |`);
  const section = `## The environment gate: a backlog behind one quota

\`bench/host/gate.sh\` (release build; \`host/examples/gate_bench.rs\`; PostgreSQL when \`DEFERRAL_TEST_POSTGRES_URL\` names a server):
${cases[0]?.jobs ?? '-'} jobs waiting behind one environment gate, delivered as signed \`deployment_protection_rule\` requests to the real
\`deferral-host run\` (a GitHub App) over a quota of 45 requests every 3 s where each job costs 10 (4 fit a window above the reserve),
approved through the GitHub stand-in's callback. With two replicas the deliveries alternate between them and the first is sent to both.

| store | replicas | approvals | refused by GitHub | early | windows used | after the window opened (median / max) | all approved | progress comments | GitHub requests |
|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Goal: each job approved once, none early, no decision refused, in at most the minimum windows + 1: ${met}.
`;
  return { summary, section };
}
