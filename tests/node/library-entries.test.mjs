// The package's two entries, "deferral" and "deferral/octokit", are bundles that share one chunk:
// a process importing both loads and instantiates the wasm core once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { repoRoot } from './helpers.mjs';

// Counts reads of the compressed wasm by patching node:fs before the entries load.
const PROBE = `
import fs from 'node:fs';
let reads = 0;
const read = fs.readFileSync;
fs.readFileSync = (path, ...rest) => { if (String(path).includes('deferral_wasm_bg.wasm')) reads += 1; return read(path, ...rest); };
const lib = await import('deferral');
const octokit = await import('deferral/octokit');
lib.decide({});
process.stdout.write(JSON.stringify({ reads, exports: [typeof lib.createResumableDeferralHost, typeof octokit.wrapOctokit] }));
`;

test('both entries load one wasm instance between them', () => {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE], { cwd: repoRoot, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { reads: 1, exports: ['function', 'function'] });
});
