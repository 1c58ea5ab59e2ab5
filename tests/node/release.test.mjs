// scripts/release.sh for this machine's target, as the release workflow runs it per platform:
// the deferral-host archive, the npm tarball and SHA256SUMS over both. The host binary is the
// one the tests already built (DEFERRAL_HOST_BINARY), so this stays fast; the release workflow
// builds with cargo build --release.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureHostBinary, hostBinary } from '../support/host-serve.mjs';
import { repoRoot } from './helpers.mjs';

const VERSION = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).version;
const TARGET = spawnSync('rustc', ['-vV'], { encoding: 'utf8' }).stdout.match(/^host: (.+)$/m)[1];
const releaseBinary = join(repoRoot, 'target/release/deferral-host');
let dir;

const release = (args, env = {}) => spawnSync('bash', [join(repoRoot, 'scripts/release.sh'), ...args], {
  cwd: repoRoot, encoding: 'utf8', env: { ...process.env, DEFERRAL_HOST_BINARY: existsSync(releaseBinary) ? releaseBinary : hostBinary, ...env },
});
const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

before(() => { ensureHostBinary(); dir = mkdtempSync(join(tmpdir(), 'deferral-release-')); });
after(() => rmSync(dir, { recursive: true, force: true }));

test('the local target: a host archive, the npm tarball, and their SHA-256 sums', () => {
  const out = join(dir, 'assets');
  const run = release([out]);
  assert.equal(run.status, 0, run.stderr);
  const host = `deferral-host-${VERSION}-${TARGET}.tar.gz`;
  const npm = `deferral-${VERSION}.tgz`;
  assert.deepEqual(readdirSync(out).sort(), ['SHA256SUMS', npm, host].sort());
  const sums = readFileSync(join(out, 'SHA256SUMS'), 'utf8');
  assert.equal(sums, [npm, host].sort().map((f) => `${sha256(join(out, f))}  ${f}\n`).join(''));

  const unpacked = join(dir, 'unpacked');
  mkdirSync(unpacked);
  assert.equal(spawnSync('tar', ['-xzf', join(out, host), '-C', unpacked]).status, 0);
  const version = spawnSync(join(unpacked, 'deferral-host'), ['--version'], { encoding: 'utf8' });
  assert.equal(version.stdout.trim(), `deferral-host ${VERSION}`, 'the archived binary runs');
  assert.deepEqual(readdirSync(unpacked).sort(), ['LICENSE', 'README.md', 'deferral-host']);
  const listing = spawnSync('tar', ['-tzf', join(out, npm)], { encoding: 'utf8' }).stdout;
  assert.match(listing, /^package\/dist\/cli\.js$/m);
  assert.match(listing, /^package\/LICENSE$/m);
});

test('assets are never replaced, and each step refuses what it cannot do', () => {
  const out = join(dir, 'taken');
  mkdirSync(out);
  writeFileSync(join(out, 'deferral-0.0.1.tgz'), 'an older asset');
  const again = release([out]);
  assert.notEqual(again.status, 0);
  assert.match(again.stderr, /is not empty; give a new folder/);
  assert.equal(readFileSync(join(out, 'deferral-0.0.1.tgz'), 'utf8'), 'an older asset');

  const empty = join(dir, 'empty');
  mkdirSync(empty);
  assert.match(release(['sums', empty]).stderr, /nothing to sum/);
  assert.match(release(['host', TARGET, join(dir, 'h')], { DEFERRAL_HOST_BINARY: join(dir, 'missing') }).stderr, /is not an executable/);
  assert.match(release(['host']).stderr, /usage: release\.sh host TARGET OUT_DIR/);
});
