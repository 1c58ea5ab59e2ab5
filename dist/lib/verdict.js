// The short human verdict `deferral gate` and `resume` print on stderr when it is a terminal (or
// with --verdict): status, reason, the figures, and when to resume in local time and UTC. Never
// on stdout, which carries exactly one JSON line.

const pad = (n) => String(Math.abs(n)).padStart(2, '0');

/** `YYYY-MM-DD HH:MM:SS ±HH:MM` in the machine's time zone. */
export function localTime(ms) {
  const d = new Date(ms);
  const offset = -d.getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())} ${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`;
}

const when = (iso) => `${localTime(Date.parse(iso))} (${iso})`;

/** The verdict text for a result view (the CLI's JSON object), ending with a newline. */
export function verdictText(view) {
  const lines = [`deferral: ${view.status}${view.code ? ` (${view.code})` : ''}${view.reason ? `, reason ${view.reason}` : ''}`];
  const rows = [['REST', view.rest], ['GraphQL', view.graphql]].filter(([, f]) => f);
  if (rows.length > 0) {
    lines.push(`  ${'resource'.padEnd(8)} ${'remaining'.padStart(9)} ${'reserve'.padStart(8)} ${'cost'.padStart(6)}  fits`);
    for (const [name, f] of rows) {
      lines.push(`  ${name.padEnd(8)} ${String(f.remaining).padStart(9)} ${String(f.reserve).padStart(8)} ${String(f.plannedCost).padStart(6)}  ${f.ok ? 'yes' : 'no'}`);
    }
  }
  if (view.status === 'deferred') {
    lines.push(`  resume after ${when(view.resumeAfter)}`, `  resume by    ${when(view.resumeBy)}`);
  }
  const why = (view.diagnostics ?? []).find((d) => d.code === view.code);
  if (why) lines.push(`  ${why.message}`);
  return `${lines.join('\n')}\n`;
}
