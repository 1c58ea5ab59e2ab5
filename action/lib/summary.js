// The job summary (Markdown) and the one-line explanation used for annotations and logs. They
// show figures, reasons and times only: never the token, scope, request or repository.

const utc = (ms) => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
// Markdown text from messages (which may quote a plan's keys): one line, no HTML, no table break.
const text = (v) => String(v).replace(/[\r\n]+/g, ' ').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const cell = (v) => (v === null || v === undefined ? '–' : text(v).replace(/\|/g, '\\|'));
const resetCell = (seconds) => (seconds == null ? '–' : utc(seconds * 1000));

const HEADLINE = {
  ready: 'Ready: the planned work fits above the reserve',
  deferred: 'Deferred: the work stopped before running out of quota',
  blocked: 'Blocked: this work must not run as it stands',
  error: 'Error: no decision was made',
};

/** One sentence saying what happened and, on deferral, when a fresh attempt may start. */
export function explainLine(view) {
  switch (view.status) {
    case 'ready':
      return view.unlimited ? 'Ready: the server does not enforce rate limits.' : `Ready: REST ${view.rest?.remaining ?? '?'} remaining${view.graphql ? `, GraphQL ${view.graphql.remaining} remaining` : ''}.`;
    case 'deferred':
      return `Deferred (${view.reason}): a fresh attempt may start at ${view.resumeAfter} and must start by ${view.resumeBy}. Nothing was changed; resume with the receipt.`;
    case 'blocked': {
      const why = view.diagnostics.find((d) => d.code === view.code)?.message ?? view.code;
      return `Blocked (${view.code}): ${why}`;
    }
    default:
      return `Error (${view.code ?? 'error'}): ${view.message ?? view.diagnostics?.[0]?.message ?? 'no decision was made'}`;
  }
}

/** The Markdown summary for a result view (see result-view.js). */
export function summaryMarkdown(view) {
  const lines = [`### Deferral: ${HEADLINE[view.status] ?? view.status}`, ''];
  const rows = [['REST (core)', view.rest], ['GraphQL', view.graphql]].filter(([, f]) => f);
  if (view.unlimited) lines.push('The server does not enforce primary rate limits (GitHub Enterprise Server with rate limiting off).', '');
  if (rows.length > 0) {
    lines.push('| resource | limit | remaining | reserve | planned cost | reset | fits |', '|---|---:|---:|---:|---:|---|---|');
    for (const [name, f] of rows) {
      lines.push(`| ${name} | ${cell(f.limit)} | ${cell(f.remaining)} | ${cell(f.reserve)} | ${cell(f.plannedCost)} | ${resetCell(f.reset)} | ${f.ok ? 'yes' : '**no**'} |`);
    }
    lines.push('');
  }
  if (view.status === 'deferred') {
    lines.push(
      '| deferral | |', '|---|---|',
      `| reason | \`${view.reason}\` |`,
      `| resume after | ${utc(Date.parse(view.resumeAfter))} |`,
      `| resume by | ${utc(Date.parse(view.resumeBy))} |`,
      `| fresh approval required | ${view.freshApprovalRequired ? 'yes' : 'no'} |`,
      ...(view.deferralId ? [`| durable host | retained as \`${view.deferralId}\` |`] : []),
      '',
      view.deferralId
        ? 'No work ran. The durable host wakes a fresh run at the resume time.'
        : 'No work ran. Start a fresh run with the `deferred-receipt` output as the `receipt` input at or after the resume time.',
      '',
    );
  }
  if (view.status === 'blocked' || view.status === 'error') lines.push(text(explainLine(view)), '');
  const notes = (view.diagnostics ?? []).filter((d) => d.code !== view.code);
  if (notes.length > 0) {
    lines.push('<details><summary>Diagnostics</summary>', '');
    for (const d of notes) lines.push(`- \`${d.code}\`: ${text(d.message)}`);
    lines.push('', '</details>', '');
  }
  return lines.join('\n');
}
