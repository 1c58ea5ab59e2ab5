// The npm package as a user gets it: packed by scripts/pack.mjs, installed from the tarball into
// an empty folder without the network, then `npx deferral --help`, an import of each entry,
// and the shipped declarations type-checking a consumer there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'deferral-package-'));
  const packed = run(process.execPath, [join(repoRoot, 'scripts/pack.mjs'), join(dir, 'pack')], repoRoot);
  assert.equal(packed.status, 0, packed.stderr);
  tarball = packed.stdout.trim();
  const app = join(dir, 'app');
  run('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), '{"name":"consumer","private":true,"type":"module"}\n');
  const installed = run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], app);
  assert.equal(installed.status, 0, installed.stderr);
  dir = app;
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
