// Decision latency on the same inputs (the shared decision vectors), in one run: native Rust
// (core/examples/decide_latency.rs) and the wasm build called from Node. Prints one JSON object.
// Usage: node bench/decisions.mjs (bench/run.mjs calls it).
import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { call } from '../dist/lib/wasm.js';
import { repoRoot, median } from './util.mjs';

const dir = join(repoRoot, 'tests/vectors/decisions');
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f));
const inputs = files.map((f) => JSON.stringify(JSON.parse(readFileSync(f, 'utf8')).input));

function wasmMicros() {
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    let n = 0;
    const start = process.hrtime.bigint();
    while (process.hrtime.bigint() - start < 200_000_000n) {
      for (const input of inputs) call('decide', input);
      n += inputs.length;
    }
    rounds.push(Number(process.hrtime.bigint() - start) / 1e3 / n);
  }
  return median(rounds);
}

const wasm = wasmMicros();
execFileSync('cargo', ['build', '--quiet', '--release', '-p', 'deferral-core', '--example', 'decide_latency'], { cwd: repoRoot, stdio: 'inherit' });
const native = median([0, 1, 2].map(() => JSON.parse(execFileSync(join(repoRoot, 'target/release/examples/decide_latency'), files, { encoding: 'utf8' })).micros_per_decision));

console.log(JSON.stringify({
  vectors: inputs.length,
  native_us_per_decision: Math.round(native * 100) / 100,
  wasm_us_per_decision: Math.round(wasm * 100) / 100,
  wasm_over_native: Math.round((wasm / native) * 100) / 100,
}));
