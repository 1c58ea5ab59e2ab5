#!/usr/bin/env node
// Writes tests/vectors/runs/cases.jsonl: each crossing of a CLI or Action run that the Node suite
// made (driver/src/run.rs: the input text and the bytes of the files read so far) with the exact
// step the core answers today. The crossings come from a harvest (scripts/harvest-crossings.sh);
// answers are computed through dist/ here. driver/tests/run_vectors.rs checks them natively
// (so `cargo test` and `cargo mutants` reach the attempt, the CLI and the views) and
// tests/node/run-vectors.test.mjs through dist/.
// Usage: node scripts/run-vectors.mjs [RUN.jsonl]   (no harvest: answer the kept inputs again)
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as wasm from '../dist/wasm/deferral_wasm.js';
import '../dist/lib/wasm.js'; // instantiates the module that deferral_wasm.js exports from

const root = join(fileURLToPath(import.meta.url), '..', '..');
const out = join(root, 'tests/vectors/runs/cases.jsonl');
const [harvest] = process.argv.slice(2);
if (harvest?.startsWith('-')) {
  console.error('usage: node scripts/run-vectors.mjs [RUN.jsonl]');
  process.exit(2);
}
// Without a harvest, the harvested crossings kept in cases.jsonl (the hand-written ones are read
// again from extra-inputs.json below).
const lines = readFileSync(harvest ?? out, 'utf8').split('\n').filter((l) => l.trim() && !l.startsWith('{"about"') && !l.startsWith('{"note"'));
// The hand-written crossings of extra-inputs.json ({note, input, files: [[name, path, text]]}):
// what no Node test reaches (explain at the window's edges, digest kinds).
const extra = join(root, 'tests/vectors/runs/extra-inputs.json');
for (const { note, input, files } of existsSync(extra) ? JSON.parse(readFileSync(extra, 'utf8')) : []) {
  const texts = files.map(([, , text]) => Buffer.from(text));
  const full = { ...input, file_sizes: files.map(([name, path], i) => [name, texts[i].length, path]) };
  lines.push(JSON.stringify({ note, input: JSON.stringify(full), files: Buffer.concat(texts).toString('base64') }));
}
const MAX_FILES_BASE64 = 64 * 1024;
const seen = new Set();
const cases = [];
for (const line of lines) {
  const { note, input, files } = JSON.parse(line);
  const key = `${input}\u0000${files}`;
  // The bounded-read tests hand over a MiB of /dev/zero: checked by those tests, not kept here.
  if (seen.has(key) || files.length > MAX_FILES_BASE64) continue;
  seen.add(key);
  const bytes = Buffer.from(files, 'base64');
  const answer = wasm.run(input, bytes);
  if (wasm.run(input, bytes) !== answer) throw new Error(`two answers to one crossing: ${input.slice(0, 200)}`);
  cases.push(note ? { note, input, files, answer } : { input, files, answer });
}
// One crossing a line (the first line says what the file is), so a change shows as the lines of
// the crossings it moves.
const about = { about: 'One crossing of a CLI or Action run a line: `input` (text) and `files` (the bytes read so far, base64) as the shell sends them, `answer` the exact step the core answers. Written by scripts/run-vectors.mjs from a harvest (scripts/harvest-crossings.sh).' };
writeFileSync(out, `${[about, ...cases].map((c) => JSON.stringify(c)).join('\n')}\n`);
const surfaces = {};
for (const c of cases) {
  const { surface, crossing } = JSON.parse(c.input);
  surfaces[`${surface}#${crossing}`] = (surfaces[`${surface}#${crossing}`] ?? 0) + 1;
}
console.log(`${cases.length} crossings -> ${out}`, JSON.stringify(surfaces));
