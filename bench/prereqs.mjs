// What `npm run bench` needs before it starts, checked up front so a fresh clone does not stop
// half-way (it used to end with `spawnSync wasm-bindgen ENOENT` after a minute of measuring).
// What can be installed is installed (the same way scripts/build-dist.sh does); what cannot is
// named with the command that fixes it. `--no-install` only names what is missing.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './util.mjs';

const say = (text) => process.stderr.write(`bench: ${text}\n`);

/** The wasm-bindgen version wasm/Cargo.toml pins with "="; the CLI must equal it. */
export function pinnedWasmBindgen() {
  const toml = readFileSync(join(repoRoot, 'wasm/Cargo.toml'), 'utf8');
  const version = /^wasm-bindgen = "=([0-9.]+)"/m.exec(toml)?.[1];
  if (!version) throw new Error('cannot read the pinned wasm-bindgen version from wasm/Cargo.toml');
  return version;
}

function output(cmd, args) {
  const run = spawnSync(cmd, args, { encoding: 'utf8', cwd: repoRoot });
  return run.status === 0 ? run.stdout : null;
}

/** Each missing prerequisite: {what, fix, install?: [cmd, ...args], note?}. */
export function missingPrereqs() {
  const missing = [];
  if (!existsSync(join(repoRoot, 'node_modules/ajv')) || !existsSync(join(repoRoot, 'node_modules/binaryen/bin/wasm-opt'))) {
    missing.push({ what: 'the npm dev dependencies (ajv, binaryen for wasm-opt)', fix: 'npm ci', install: ['npm', 'ci', '--no-audit', '--no-fund'] });
  }
  if (output('cargo', ['--version']) === null) {
    missing.push({ what: 'the Rust toolchain (cargo)', fix: 'install Rust with rustup: https://rustup.rs (rust-toolchain.toml picks the version)' });
    return missing; // the rest comes with it
  }
  const targets = output('rustup', ['target', 'list', '--installed']);
  if (targets === null || !targets.split('\n').includes('wasm32-unknown-unknown')) {
    missing.push({ what: 'the wasm32-unknown-unknown Rust target', fix: 'rustup target add wasm32-unknown-unknown', install: ['rustup', 'target', 'add', 'wasm32-unknown-unknown'] });
  }
  const want = pinnedWasmBindgen();
  const have = output('wasm-bindgen', ['--version'])?.trim().split(' ')[1];
  if (have !== want) {
    missing.push({
      what: `wasm-bindgen-cli ${want} (on PATH: ${have ? `wasm-bindgen ${have}` : 'none'})`,
      fix: `bash scripts/install-wasm-bindgen.sh (cargo install --locked wasm-bindgen-cli --version ${want})`,
      install: ['bash', 'scripts/install-wasm-bindgen.sh'],
      note: 'about 3 minutes, once',
    });
  }
  return missing;
}

/**
 * Installs what is missing and installable (unless `install` is false), then returns true when
 * everything is here; otherwise says what is missing and how to get it, and returns false.
 */
export function ensurePrereqs({ install = true } = {}) {
  let missing = missingPrereqs();
  if (install) {
    for (const item of missing.filter((m) => m.install)) {
      say(`installing ${item.what}: ${item.fix}${item.note ? ` (${item.note})` : ''}`);
      execFileSync(item.install[0], item.install.slice(1), { cwd: repoRoot, stdio: ['ignore', 'inherit', 'inherit'] });
    }
    missing = missingPrereqs();
  }
  if (missing.length === 0) return true;
  say('cannot start: missing');
  for (const item of missing) say(`  - ${item.what}: ${item.fix}${item.note ? ` (${item.note})` : ''}`);
  if (!install && missing.some((m) => m.install)) say('run npm run bench without --no-install to install what can be installed');
  return false;
}
