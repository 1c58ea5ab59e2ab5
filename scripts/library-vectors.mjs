#!/usr/bin/env node
// Writes tests/vectors/library/cases.json: each input the JS library hands its core (one
// `library` crossing: an op and the facts the JS holds) with the exact answer text the core gives
// today. The inputs come from a harvest: a JSONL file of the crossings the Node suite made (how to
// take one: tests/vectors/library/README.md). Answers are computed through dist/ here, once; the
// tests then check them natively (driver/tests/library_vectors.rs) and through dist/
// (tests/node/library-vectors.test.mjs), so a change to a message, a code or a default shows.
// Usage: node scripts/library-vectors.mjs HARVEST.jsonl [--add]   (--add keeps the cases there)
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as wasm from '../dist/wasm/deferral_wasm.js';
import '../dist/lib/wasm.js'; // instantiates the module that deferral_wasm.js exports from

const root = join(fileURLToPath(import.meta.url), '..', '..');
const out = join(root, 'tests/vectors/library/cases.json');
const [harvest, flag] = process.argv.slice(2);
if (!harvest) {
  console.error('usage: node scripts/library-vectors.mjs HARVEST.jsonl [--add]');
  process.exit(2);
}

const cases = flag === '--add' && existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')).cases : [];
const seen = new Set(cases.map((c) => JSON.stringify(c.input)));
// A test's loopback port differs from run to run and changes no answer but the echoed URL: one
// fixed port keeps a fresh harvest from duplicating cases.
const fixPorts = (text) => text.replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:8080');
for (const line of readFileSync(harvest, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  const input = JSON.parse(fixPorts(line));
  const key = JSON.stringify(input);
  if (seen.has(key)) continue;
  seen.add(key);
  const answer = wasm.library(key);
  if (wasm.library(key) !== answer) throw new Error(`op ${input.op}: two answers to one input`);
  cases.push({ input, answer });
}
cases.sort((a, b) => (a.input.op < b.input.op ? -1 : a.input.op > b.input.op ? 1 : 0));
const doc = {
  about: 'The library core, op by op: `input` is one library crossing as the JS sends it, `answer` the exact text the core answers. Written by scripts/library-vectors.mjs; see README.md.',
  cases,
};
// One case a line: a change shows as the lines of the cases it touches.
writeFileSync(out, `{"about": ${JSON.stringify(doc.about)},\n"cases": [\n${cases.map((c) => JSON.stringify(c)).join(',\n')}\n]}\n`);
const ops = new Set(cases.map((c) => c.input.op));
console.log(`${cases.length} cases, ${ops.size} ops -> ${out}`);
