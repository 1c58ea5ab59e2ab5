#!/usr/bin/env node
// Compares validateReceipt of several builds side by side with JSON.parse, in one process: each
// DIR is a copy of dist/, loaded as its own wasm instance; short rounds of each run in turn, so
// drift in machine load hits them alike. Same receipts as bench/receipts.mjs.
// Usage: node bench/receipts-compare.mjs [--rounds N] DIR...    Prints one JSON object.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { repoRoot, median } from './util.mjs';

const { values, positionals } = parseArgs({ options: { rounds: { type: 'string', default: '80' } }, allowPositionals: true });
const dir = join(repoRoot, 'tests/vectors/receipts');
const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
const buffers = cases.map((c) => readFileSync(join(dir, c.file))).filter((b) => {
  try { JSON.parse(b.toString('utf8')); return true; } catch { return false; }
});

const contenders = [['JSON.parse', (b) => JSON.parse(b.toString('utf8'))]];
for (const d of positionals) {
  // The loader is dist/lib/wasm.js since issue 20 (shared/wasm.js); older builds call it core.js.
  const loader = ['lib/wasm.js', 'lib/core.js'].map((f) => join(resolve(d), f)).find((f) => existsSync(f));
  const { validateReceipt } = await import(pathToFileURL(loader).href);
  contenders.push([d, (b) => validateReceipt(b)]);
}
const rates = contenders.map(() => []);
for (let r = 0; r < Number(values.rounds); r++) {
  for (let k = 0; k < contenders.length; k++) {
    const fn = contenders[k][1];
    let n = 0;
    const start = process.hrtime.bigint();
    while (process.hrtime.bigint() - start < 20_000_000n) {
      for (const b of buffers) fn(b);
      n += buffers.length;
    }
    rates[k].push(n / (Number(process.hrtime.bigint() - start) / 1e9));
  }
}
const base = median(rates[0]);
console.log(JSON.stringify({
  command: `node bench/receipts-compare.mjs --rounds ${values.rounds}`,
  node: process.version,
  receipts: buffers.length,
  results: contenders.map(([name], k) => ({ name, per_second: Math.round(median(rates[k])), over_json_parse: Math.round((median(rates[k]) / base) * 1000) / 1000 })),
}, null, 1));
