// `npm run bench` on a machine that lacks something: it says exactly what is missing and how to
// get it before measuring anything (it used to stop a minute in with `spawnSync wasm-bindgen
// ENOENT`). PATH is narrowed to a folder holding only the tools each case allows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './helpers.mjs';

const pinned = /^wasm-bindgen = "=([0-9.]+)"/m.exec(readFileSync(join(repoRoot, 'wasm/Cargo.toml'), 'utf8'))[1];

/** Where a tool is on the current PATH, or null. */
function which(name) {
  try { return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null; } catch { return null; }
}

/** Runs bench/run.mjs with PATH holding only `tools` (plus node). */
function benchWith(tools, args) {
  const bin = mkdtempSync(join(tmpdir(), 'deferral-bench-path-'));
  try {
    symlinkSync(process.execPath, join(bin, 'node'));
    for (const tool of tools) {
      const path = which(tool);
      if (path) symlinkSync(path, join(bin, tool));
    }
    const env = { ...process.env, PATH: bin };
    return spawnSync(process.execPath, [join(repoRoot, 'bench/run.mjs'), ...args], { env, encoding: 'utf8', timeout: 60_000 });
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
}

test('without wasm-bindgen: names wasm-bindgen-cli at the pinned version and the command, measures nothing', () => {
  const run = benchWith(['cargo', 'rustup', 'rustc'], ['--no-install']);
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, new RegExp(`wasm-bindgen-cli ${pinned.replaceAll('.', '\\.')} \\(on PATH: none\\)`));
  assert.match(run.stderr, new RegExp(`scripts/install-wasm-bindgen\\.sh \\(cargo install --locked wasm-bindgen-cli --version ${pinned.replaceAll('.', '\\.')}`));
  assert.doesNotMatch(run.stderr, /Rust toolchain|npm dev dependencies/, 'only what is missing');
  assert.doesNotMatch(run.stderr, /receipt validation|ENOENT/, 'stopped before measuring');
  assert.equal(run.stdout, '');
});

test('without Rust at all: says to install it with rustup', () => {
  const run = benchWith([], ['--no-install']);
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stderr, /the Rust toolchain \(cargo\): install Rust with rustup: https:\/\/rustup\.rs/);
});

test('with everything here: --check says so and stops', { skip: which('wasm-bindgen') ? false : 'wasm-bindgen is not installed here' }, () => {
  const run = benchWith(['cargo', 'rustup', 'rustc', 'wasm-bindgen'], ['--check', '--no-install']);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /everything it needs is here/);
});
