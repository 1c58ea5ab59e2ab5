// Receipt validation throughput on the same receipts, in one run: native Rust, the wasm build
// from Node, and JSON.parse + the compiled JSON Schema (Ajv). Also the wasm and dist/ sizes.
// Prints one JSON object. Usage: node bench/receipts.mjs (bench/run.mjs calls it).
import { readFileSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { inflateRawSync } from 'node:zlib';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { validateReceipt } from '../dist/lib/wasm.js';
import { repoRoot, median, dirBytes } from './util.mjs';

const dir = join(repoRoot, 'tests/vectors/receipts');
const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
// The valid receipts plus every invalid one that JSON.parse accepts, so all three see the same.
const files = cases.map((c) => join(dir, c.file)).filter((f) => {
  try { JSON.parse(readFileSync(f, 'utf8')); return true; } catch { return false; }
});
const buffers = files.map((f) => readFileSync(f));

// Receipts per second of each contender, measured in turn: five rounds of 200 ms each, the
// contenders interleaved within every round so that drift in machine load hits them alike.
function throughputs(contenders) {
  const rounds = contenders.map(() => []);
  for (let r = 0; r < 5; r++) {
    contenders.forEach((fn, k) => {
      let n = 0;
      const start = process.hrtime.bigint();
      while (process.hrtime.bigint() - start < 200_000_000n) {
        for (const b of buffers) fn(b);
        n += buffers.length;
      }
      rounds[k].push(n / (Number(process.hrtime.bigint() - start) / 1e9));
    });
  }
  return rounds.map((rates) => Math.round(median(rates)));
}

const schema = JSON.parse(readFileSync(join(repoRoot, 'docs/deferred-receipt-v1.schema.json'), 'utf8'));
const ajv = new Ajv2020({ strict: true }).compile(schema);
// validateReceipt also takes an already parsed object (it is serialised, then checked).
const parsed = new Map(buffers.map((b) => [b, JSON.parse(b.toString('utf8'))]));
const [wasmPerSecond, ajvPerSecond, jsonParsePerSecond, wasmObjectPerSecond] = throughputs([
  (b) => validateReceipt(b),
  (b) => ajv(JSON.parse(b.toString('utf8'))),
  // The goal's baseline: JSON.parse alone on the same bytes, in the same run.
  (b) => JSON.parse(b.toString('utf8')),
  (b) => validateReceipt(parsed.get(b)),
]);

execFileSync('cargo', ['build', '--quiet', '--release', '-p', 'deferral-core', '--example', 'validate_throughput'], { cwd: repoRoot, stdio: 'inherit' });
const nativeRuns = [0, 1, 2].map(() => JSON.parse(execFileSync(join(repoRoot, 'target/release/examples/validate_throughput'), files, { encoding: 'utf8' })).per_second);
const nativePerSecond = Math.round(median(nativeRuns));

// The receipt-only module (no rate engine), built like dist/'s but into a scratch folder: the
// size goal of the receipt contract applies to it; the shipped module also carries the engine.
function receiptOnlyWasmBytes() {
  const target = join(repoRoot, 'target/wasm-build');
  execFileSync('cargo', ['build', '--quiet', '--locked', '-p', 'deferral-wasm', '--no-default-features', '--profile', 'wasm',
    '--target', 'wasm32-unknown-unknown', '--target-dir', target], { cwd: repoRoot, stdio: 'inherit' });
  const out = mkdtempSync(join(tmpdir(), 'deferral-receipt-only-'));
  try {
    execFileSync('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-dir', out, join(target, 'wasm32-unknown-unknown/wasm/deferral_wasm.wasm')]);
    // The same passes as scripts/build-dist.sh.
    execFileSync(join(repoRoot, 'node_modules/binaryen/bin/wasm-opt'), ['--low-memory-unused', '--merge-similar-functions', '-Oz', '--converge', '--enable-bulk-memory', '--enable-nontrapping-float-to-int',
      '--enable-sign-ext', '--enable-mutable-globals', '-o', join(out, 'opt.wasm'), join(out, 'deferral_wasm_bg.wasm')]);
    return statSync(join(out, 'opt.wasm')).size;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

console.log(JSON.stringify({
  receipts: buffers.length,
  wasm_bytes_deflate: statSync(join(repoRoot, 'dist/wasm/deferral_wasm_bg.wasm.deflate')).size,
  wasm_receipt_only_bytes: receiptOnlyWasmBytes(),
  wasm_bytes_raw: inflateRawSync(readFileSync(join(repoRoot, 'dist/wasm/deferral_wasm_bg.wasm.deflate'))).length,
  dist_bytes: dirBytes(join(repoRoot, 'dist')),
  native_per_second: nativePerSecond,
  wasm_per_second: wasmPerSecond,
  ajv_per_second: ajvPerSecond,
  json_parse_per_second: jsonParsePerSecond,
  wasm_object_per_second: wasmObjectPerSecond,
}));
