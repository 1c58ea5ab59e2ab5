#!/usr/bin/env node
// Records, and later checks, what dist/ was built from: SHA-256 of every source that shapes it
// and of every file in it. `check` needs only Node, so a stale dist/ is caught without a wasm
// toolchain. Usage: node scripts/dist-manifest.mjs write|check
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const MANIFEST = 'dist/MANIFEST.json';
// Everything that changes the bytes of dist/.
const SOURCE_ROOTS = ['core/src', 'core/Cargo.toml', 'driver/src', 'driver/Cargo.toml', 'protocol/src', 'protocol/Cargo.toml', 'receipt/src', 'receipt/Cargo.toml', 'wasm/src', 'wasm/Cargo.toml', 'action',
  'library', 'shared',
  'Cargo.toml', 'Cargo.lock', 'rust-toolchain.toml', 'scripts/build-dist.sh'];

function walk(path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [path];
  return readdirSync(full).sort().flatMap((name) => walk(join(path, name)));
}

const sha256 = (path) => createHash('sha256').update(readFileSync(join(root, path))).digest('hex');
const hashAll = (paths) => Object.fromEntries(paths.map((p) => [p.split('\\').join('/'), sha256(p)]));

function sources() {
  return hashAll(SOURCE_ROOTS.flatMap(walk));
}

function outputs() {
  return hashAll(walk('dist').filter((p) => relative('dist', p) !== 'MANIFEST.json'));
}

function tool(cmd, args) {
  try { return execFileSync(cmd, args, { encoding: 'utf8' }).trim(); } catch { return null; }
}

function packageVersion(name) {
  const pkg = join(root, 'node_modules', name, 'package.json');
  return existsSync(pkg) ? JSON.parse(readFileSync(pkg, 'utf8')).version : null;
}

const mode = process.argv[2];
if (mode === 'write') {
  const manifest = {
    built_from: 'bash scripts/build-dist.sh',
    tools: { rustc: tool('rustc', ['--version']), 'wasm-bindgen': tool('wasm-bindgen', ['--version']), binaryen: packageVersion('binaryen'), esbuild: packageVersion('esbuild') },
    sources: sources(),
    outputs: outputs(),
  };
  writeFileSync(join(root, MANIFEST), JSON.stringify(manifest, null, 1) + '\n');
} else if (mode === 'check') {
  if (!existsSync(join(root, MANIFEST))) {
    console.error('dist is stale: dist/MANIFEST.json is missing; run bash scripts/build-dist.sh');
    process.exit(1);
  }
  const manifest = JSON.parse(readFileSync(join(root, MANIFEST), 'utf8'));
  const problems = [];
  const compare = (label, want, got) => {
    for (const p of new Set([...Object.keys(want), ...Object.keys(got)])) {
      if (!(p in got)) problems.push(`${label} ${p} was removed`);
      else if (!(p in want)) problems.push(`${label} ${p} is new`);
      else if (want[p] !== got[p]) problems.push(`${label} ${p} changed`);
    }
  };
  compare('source', manifest.sources, sources());
  compare('output', manifest.outputs, outputs());
  if (problems.length) {
    console.error(`dist is stale (${problems.length} difference(s)); run bash scripts/build-dist.sh:`);
    for (const p of problems.slice(0, 20)) console.error(`  ${p}`);
    process.exit(1);
  }
  console.log(`dist is current: ${Object.keys(manifest.sources).length} sources, ${Object.keys(manifest.outputs).length} outputs`);
} else {
  console.error('usage: node scripts/dist-manifest.mjs write|check');
  process.exit(2);
}
