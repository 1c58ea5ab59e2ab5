// The npm package as a user gets it: packed by scripts/pack.mjs, installed from the tarball into
// an empty folder without the network, then `npx deferral --help`, an import of each entry,
// and the shipped declarations type-checking a consumer there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './helpers.mjs';

const ENTRIES = {
  deferral: [
    'INVALID_RECEIPT', 'INVALID_TRANSITION', 'PortError', 'createFileKeyStore', 'createGovernedHandoffReceipt',
    'createPortClient', 'createResumableDeferralHost', 'createServePort', 'decide', 'defaultKeyStoreDir',
    'lifecycleTransition', 'parseDeferredReceiptV1', 'receiptDigest', 'validateReceipt',
  ],
  'deferral/octokit': ['DeferralBlockedError', 'DeferredError', 'deferral', 'wrapOctokit'],
};

let dir;
let tarball;
const run = (cmd, args, cwd = dir) => spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
const INSTALLER_FIELDS = ['name', 'version', 'bin', 'exports', 'types', 'engines', 'dependencies', 'optionalDependencies', 'peerDependencies', 'bundleDependencies'];

/** Installs `tarball` into a new empty project `app` under `parent`, offline; returns its path. */
function installInto(parent, app, tarball) {
  const folder = join(parent, app);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), '{"name":"consumer","private":true,"type":"module"}\n');
  const installed = run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], folder);
  assert.equal(installed.status, 0, installed.stderr);
  return folder;
}

/** The files a tarball holds, sorted. */
const tarList = (tarball) => run('tar', ['tzf', tarball]).stdout.split('\n').filter(Boolean).sort();

/** What an installer reads from the package.json inside a tarball. */
function installerFields(tarball) {
  const manifest = JSON.parse(run('tar', ['xzOf', tarball, 'package/package.json']).stdout);
  return Object.fromEntries(INSTALLER_FIELDS.filter((k) => k in manifest).map((k) => [k, manifest[k]]));
}

/** The installed project's node_modules: only the package (and npm's own lockfile, the bin link). */
function assertOnlyThePackage(folder) {
  const modules = join(folder, 'node_modules');
  assert.deepEqual(readdirSync(modules).sort(), ['.bin', '.package-lock.json', 'deferral']);
  assert.deepEqual(readdirSync(join(modules, '.bin')), ['deferral']);
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'deferral-package-'));
  const packed = run(process.execPath, [join(repoRoot, 'scripts/pack.mjs'), join(dir, 'pack')], repoRoot);
  assert.equal(packed.status, 0, packed.stderr);
  tarball = packed.stdout.trim();
  dir = installInto(dir, 'app', tarball);
});
after(() => { rmSync(join(dir, '..'), { recursive: true, force: true }); });

test('the tarball holds dist/, the declarations and a package.json without the test tools', () => {
  const list = run('tar', ['tzf', tarball]).stdout.split('\n');
  for (const file of ['package/dist/cli.js', 'package/dist/lib/index.js', 'package/dist/wasm/deferral_wasm_bg.wasm.deflate', 'package/types/index.d.ts', 'package/types/octokit.d.ts', 'package/dist/lib/octokit/index.js', 'package/package.json']) {
    assert.ok(list.includes(file), `${file} is packed`);
  }
  assert.ok(!list.some((f) => f.startsWith('package/action/') || f.startsWith('package/tests/')), 'sources and tests stay out');
  const manifest = JSON.parse(readFileSync(join(dir, 'node_modules/deferral/package.json'), 'utf8'));
  assert.deepEqual(manifest.bin, { deferral: 'dist/cli.js' });
  assert.equal(manifest.devDependencies, undefined);
  assert.equal(manifest.optionalDependencies, undefined);
});

test('plain npm pack gives the same files and what an installer reads, and installs only the package', () => {
  const out = join(dir, '..', 'npm-pack');
  mkdirSync(out, { recursive: true });
  const packed = run('npm', ['pack', '--json', '--pack-destination', out], repoRoot);
  assert.equal(packed.status, 0, packed.stderr);
  const plain = join(out, JSON.parse(packed.stdout)[0].filename);
  assert.deepEqual(tarList(plain), tarList(tarball));
  assert.deepEqual(installerFields(plain), installerFields(tarball));
  assert.deepEqual(Object.keys(installerFields(plain)).filter((k) => k.endsWith('ependencies')), [], 'nothing to install beside the package');
  assertOnlyThePackage(installInto(join(dir, '..'), 'plain-app', plain));
  assertOnlyThePackage(dir);
});

test('the tarball carries the MIT licence package.json names', () => {
  assert.equal(installerFields(tarball).name, 'deferral');
  const licence = run('tar', ['xzOf', tarball, 'package/LICENSE']);
  assert.equal(licence.status, 0, 'package/LICENSE is packed');
  assert.match(licence.stdout, /^MIT License\n\nCopyright \(c\) 2026 the Deferral authors\n/);
  assert.equal(JSON.parse(readFileSync(join(dir, 'node_modules/deferral/package.json'), 'utf8')).license, 'MIT');
});

test('npx deferral --version prints the package version', () => {
  const { version } = JSON.parse(readFileSync(join(dir, 'node_modules/deferral/package.json'), 'utf8'));
  const printed = run('npx', ['--no-install', 'deferral', '--version']);
  assert.equal(printed.status, 0, printed.stdout + printed.stderr);
  assert.equal(printed.stdout, `deferral ${version}\n`);
});

test('npx deferral --help runs the installed bin', () => {
  const help = run('npx', ['--no-install', 'deferral', '--help']);
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: deferral COMMAND/);
  const validate = run('npx', ['--no-install', 'deferral', 'validate', '-'], dir);
  assert.equal(validate.status, 2, 'an empty receipt on stdin is invalid input');
  assert.equal(JSON.parse(validate.stdout.trim()).error.code, 'malformed-json');
});

test('each entry imports from the installed package with its exports', () => {
  for (const [entry, names] of Object.entries(ENTRIES)) {
    const script = `const m = await import(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(m).sort()));`;
    const imported = run(process.execPath, ['--input-type=module', '-e', script]);
    assert.equal(imported.status, 0, imported.stderr);
    assert.deepEqual(JSON.parse(imported.stdout), names, entry);
  }
  const use = run(process.execPath, ['--input-type=module', '-e',
    "import { validateReceipt } from 'deferral'; console.log(validateReceipt('{}').error.code);"]);
  assert.equal(use.stdout.trim(), 'missing-field', 'the wasm core loads from the installed package');
});

test('the shipped declarations type-check a consumer of the installed package', () => {
  copyFileSync(join(repoRoot, 'tests/types/consumer.ts'), join(dir, 'consumer.ts'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: [] },
    files: ['consumer.ts'],
  }));
  const checked = run(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
  assert.equal(checked.status, 0, checked.stdout + checked.stderr);
});
