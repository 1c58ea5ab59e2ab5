// Durations as people write them in workflow inputs: `90` (seconds), `90s`, `15m`, `6h`.

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds of a duration text, or undefined when it does not parse. */
export function parseDuration(text) {
  const match = /^(\d{1,9})\s*(ms|s|m|h)?$/i.exec(String(text).trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[(match[2] ?? 's').toLowerCase()];
}
