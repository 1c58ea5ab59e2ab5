// The TypeScript declarations shipped with the package, checked by `tsc --noEmit`: a consumer
// file using every export (tests/types/consumer.ts), and the shared vectors as typed values:
// every valid receipt is a DeferredReceiptV1, every invalid one whose fault a type can see is
// refused, and every decision vector's input and output fit DecisionInput and Decision.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '../../dist/lib/wasm.js';
import { repoRoot } from './helpers.mjs';

const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
// Faults that live in a value's type: names, shapes and literals, not digits or sizes.
const TYPE_VISIBLE = new Set(['not-an-object', 'unknown-field', 'missing-field', 'wrong-type', 'unsupported-version', 'invalid-status', 'invalid-reason', 'invalid-ownership']);

function typeCheck(project) {
  const run = spawnSync(process.execPath, [tsc, '-p', project], { cwd: repoRoot, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A TypeScript file assigning each vector to its declared type. */
function vectorsSource() {
  const lines = ["import type { DeferredReceiptV1, Decision, DecisionInput } from 'deferral';", ''];
  const receipts = join(repoRoot, 'tests/vectors/receipts');
  const cases = JSON.parse(readFileSync(join(receipts, 'cases.json'), 'utf8'));
  let refusedByType = 0;
  cases.forEach((c, i) => {
    let value;
    try { value = JSON.parse(readFileSync(join(receipts, c.file), 'utf8')); } catch { return; }
    const typeSees = !c.valid && !c.schema_cannot_see && TYPE_VISIBLE.has(c.code);
    if (typeSees) { lines.push(`// @ts-expect-error ${c.file}: ${c.code}`); refusedByType += 1; }
    if (c.valid || typeSees) lines.push(`export const receipt${i}: DeferredReceiptV1 = ${JSON.stringify(value)};`);
  });
  const decisions = join(repoRoot, 'tests/vectors/decisions');
  for (const file of readdirSync(decisions).filter((f) => f.endsWith('.json')).sort()) {
    const { input, expected } = JSON.parse(readFileSync(join(decisions, file), 'utf8'));
    const name = file.replace(/\W/g, '_');
    if (expected.code === 'invalid-input') lines.push(`// @ts-expect-error ${file}: the core refuses this input's shape`);
    lines.push(`export const input_${name}: DecisionInput = ${JSON.stringify(input)};`);
    lines.push(`export const decision_${name}: Decision = ${JSON.stringify(expected)};`);
  }
  // Every code the core's library list holds is one the declarations name.
  lines.push("import type { LibraryErrorCode } from 'deferral';");
  for (const code of call('library', { op: 'codes' }).codes) lines.push(`export const code_${code.replace(/-/g, '_')}: LibraryErrorCode = '${code}';`);
  return { source: `${lines.join('\n')}\n`, refusedByType };
}

test('the consumer file and the vectors type-check against the shipped declarations', () => {
  const dir = join(repoRoot, '.tmp/types-check');
  mkdirSync(dir, { recursive: true });
  const { source, refusedByType } = vectorsSource();
  assert.ok(refusedByType >= 15, `only ${refusedByType} invalid vectors are visible to types`);
  writeFileSync(join(dir, 'vectors.ts'), source);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    extends: '../../tests/types/tsconfig.json',
    files: ['../../tests/types/consumer.ts', '../../tests/types/consumer-octokit.ts', 'vectors.ts'],
  }));
  const run = typeCheck(join(dir, 'tsconfig.json'));
  assert.equal(run.status, 0, run.output);
});

test('a misuse the declarations must refuse is refused', () => {
  const dir = join(repoRoot, '.tmp/types-misuse');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'misuse.ts'), [
    "import { createResumableDeferralHost, parseDeferredReceiptV1 } from 'deferral';",
    "const r = parseDeferredReceiptV1('{}');",
    "const n: string = r.issued_at_ms;",
    "createResumableDeferralHost({ schedule: async () => ({ wakeupDigest: '', cancellationDigest: '' }), state: async () => 'later', cancel: async () => {} }, Date.now);",
  ].join('\n'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../tests/types/tsconfig.json', files: ['misuse.ts'] }));
  const run = typeCheck(join(dir, 'tsconfig.json'));
  assert.notEqual(run.status, 0);
  assert.match(run.output, /misuse\.ts\(3,\d+\): error TS2322/);
  assert.match(run.output, /misuse\.ts\(4,\d+\): error/);
});
