#!/usr/bin/env node
// Writes tests/vectors/library/cases.json: each input the JS library hands its core (one
// `library` crossing: an op and the facts the JS holds) with the exact answer text the core gives
// today. The inputs are a harvest (a JSONL file of the crossings the Node suite made; how to take
// one: tests/vectors/library/README.md) and the hand-written cases of extra-inputs.json, each with
// a note. Answers are computed through dist/ here; the tests then check them natively
// (driver/tests/library_vectors.rs) and through dist/ (tests/node/library-vectors.test.mjs), so a
// change to a message, a code or a default shows.
// Usage: node scripts/library-vectors.mjs [HARVEST.jsonl [--add]]
//   no harvest: keep the harvested inputs in cases.json and answer them again;
//   --add: keep them and add the harvest's new inputs.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as wasm from '../dist/wasm/deferral_wasm.js';
import '../dist/lib/wasm.js'; // instantiates the module that deferral_wasm.js exports from

const root = join(fileURLToPath(import.meta.url), '..', '..');
const out = join(root, 'tests/vectors/library/cases.json');
const [harvest, flag] = process.argv.slice(2);
if (harvest?.startsWith('-') || (flag && flag !== '--add')) {
  console.error('usage: node scripts/library-vectors.mjs [HARVEST.jsonl [--add]]');
  process.exit(2);
}

const kept = !harvest || flag === '--add' ? JSON.parse(readFileSync(out, 'utf8')).cases.filter((c) => !c.note) : [];
const cases = [];
const seen = new Set();
/** Adds one input (and its note) with the answer the built core gives now, once. */
function answerOf(input, note) {
  const key = JSON.stringify(input);
  if (seen.has(key)) return;
  seen.add(key);
  const answer = wasm.library(key);
  if (wasm.library(key) !== answer) throw new Error(`op ${input.op}: two answers to one input`);
  cases.push(note ? { note, input, answer } : { input, answer });
}
for (const c of kept) answerOf(c.input);
// A test's loopback port differs from run to run and changes no answer but the echoed URL: one
// fixed port keeps a fresh harvest from duplicating cases.
const fixPorts = (text) => text.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:8080');
for (const line of harvest ? readFileSync(harvest, 'utf8').split('\n') : []) {
  if (line.trim()) answerOf(JSON.parse(fixPorts(line)));
}
const extra = join(root, 'tests/vectors/library/extra-inputs.json');
for (const { note, input } of existsSync(extra) ? JSON.parse(readFileSync(extra, 'utf8')) : []) answerOf(input, note);
// Stable: within an op, the harvest's order, then the hand-written cases.
cases.sort((a, b) => (a.input.op < b.input.op ? -1 : a.input.op > b.input.op ? 1 : 0));
const doc = {
  about: 'The library core, op by op: `input` is one library crossing as the JS sends it, `answer` the exact text the core answers, `note` (hand-written cases, from extra-inputs.json) what the case shows. Written by scripts/library-vectors.mjs; see README.md.',
  cases,
};
// One case a line: a change shows as the lines of the cases it touches.
writeFileSync(out, `{"about": ${JSON.stringify(doc.about)},\n"cases": [\n${cases.map((c) => JSON.stringify(c)).join(',\n')}\n]}\n`);
const ops = new Set(cases.map((c) => c.input.op));
console.log(`${cases.length} cases, ${ops.size} ops -> ${out}`);
