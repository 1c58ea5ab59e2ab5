#!/usr/bin/env node
// Packs the npm package: the committed dist/, the declarations, the `deferral` bin and the
// exports map, from a staged copy whose package.json keeps only what an installer reads. The
// repository's own package.json carries the test tools (devDependencies) and the Node 24 binary
// the tests use (an optional dependency): an `npm install deferral` must pull neither.
// Usage: node scripts/pack.mjs [OUT_DIR]   prints the tarball's path (default OUT_DIR: .tmp/pack)
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

const root = join(fileURLToPath(import.meta.url), '..', '..');
const out = resolve(process.argv[2] ?? join(root, '.tmp', 'pack'));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const KEEP = ['name', 'version', 'description', 'type', 'license', 'bin', 'types', 'exports', 'files', 'engines'];
const staged = Object.fromEntries(KEEP.filter((k) => k in manifest).map((k) => [k, manifest[k]]));

const stage = join(out, 'stage');
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const entry of manifest.files) cpSync(join(root, entry), join(stage, entry), { recursive: true });
writeFileSync(join(stage, 'package.json'), `${JSON.stringify(staged, null, 2)}\n`);

const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: stage, encoding: 'utf8' });
if (packed.status !== 0) {
  process.stderr.write(packed.stderr);
  process.exit(1);
}
const [{ filename }] = JSON.parse(packed.stdout);
rmSync(stage, { recursive: true, force: true });
console.log(join(out, filename));
