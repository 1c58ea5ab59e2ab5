// scripts/module-cycles.py: planted cycles in small crates copied to a temp dir are found
// (nested modules, use trees, super::, self::, child paths), comments and strings are not code,
// a parent and its children are one unit, and the known list must equal the cycles present.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot } from './helpers.mjs';

const script = join(repoRoot, 'scripts/module-cycles.py');

function crate(files) {
  const dir = mkdtempSync(join(tmpdir(), 'deferral-cycles-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function check(dir, known = '/dev/null') {
  const run = spawnSync('python3', [script, '--known', known, dir], { encoding: 'utf8' });
  return { status: run.status, out: run.stdout + run.stderr };
}

// A crate without a cycle: a facade parent, nested modules, references only one way.
const clean = {
  'lib.rs': 'pub mod net;\npub mod store;\n// crate::store::Db is not code here: use crate::net;\n',
  'net/mod.rs': 'pub mod transport;\npub mod client;\npub use client::Client;\n',
  'net/transport.rs': 'use crate::store::Row;\npub struct Transport;\nconst HINT: &str = "super::client::Client";\n',
  'net/client.rs': 'use super::transport::Transport;\nuse super::super::store::{self, Row};\npub struct Client(Transport);\n',
  'store.rs': 'pub mod sql;\npub struct Row;\npub fn open() -> sql::Db { sql::Db }\n',
  'store/sql.rs': 'use super::Row;\npub struct Db;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::store::Row as R;\n}\n',
};

test('a crate with nested modules and no cycle passes', () => {
  const run = check(crate(clean));
  assert.equal(run.status, 0, run.out);
  assert.match(run.out, /no module cycle/);
});

test('a cycle between nested siblings through a use group is found and printed', () => {
  const run = check(crate({ ...clean, 'net/transport.rs': 'use crate::net::{client::Client, self};\npub struct Transport;\n' }));
  assert.equal(run.status, 1, run.out);
  assert.match(run.out, /cycle: .*: net::client -> net::transport -> net::client/);
  assert.match(run.out, /net::transport -> net::client at net\/transport\.rs:1/);
  assert.match(run.out, /net::client -> net::transport at net\/client\.rs:1/);
});

test('a cycle through super:: in code (not a use) is found', () => {
  const run = check(crate({ ...clean, 'net/transport.rs': 'pub struct Transport;\nfn f() { let _ = super::client::Client::default(); }\n' }));
  assert.equal(run.status, 1, run.out);
  assert.match(run.out, /net::transport -> net::client at net\/transport\.rs:2/);
});

test('a cycle between top-level subtrees is found, from a deep file and an inline module', () => {
  const run = check(crate({ ...clean, 'store/sql.rs': 'pub struct Db;\nmod tests {\n    fn t() { crate::net::client::Client::new(); }\n}\n' }));
  assert.equal(run.status, 1, run.out);
  assert.match(run.out, /cycle: .*: net -> store -> net/);
  assert.match(run.out, /store -> net at store\/sql\.rs:3/);
});

test('a cycle of three through self:: and a child module path is found', () => {
  const run = check(crate({
    'lib.rs': 'mod a;\nmod b;\nmod c;\n',
    'a.rs': 'use self::inner::X;\nmod inner { pub use crate::b::Y as X; }\n',
    'b.rs': 'pub struct Y;\nfn f() { crate::c::g(); }\n',
    'c.rs': 'pub fn g() { let _ = crate::a::Z; }\n',
  }));
  assert.equal(run.status, 1, run.out);
  assert.match(run.out, /cycle: .*: a -> b -> c -> a/);
});

test('a known cycle passes; a new one or a stale entry fails', () => {
  const dir = crate({ ...clean, 'net/transport.rs': 'use super::client::Client;\n' });
  const name = `${dir}: net::client -> net::transport -> net::client`;
  const known = join(dir, 'known.txt');
  writeFileSync(known, `# a comment\n${name}\n`);
  const listed = check(dir, known);
  assert.equal(listed.status, 0, listed.out);
  assert.match(listed.out, /known: /);
  appendFileSync(known, `${dir}: net -> store -> net\n`);
  const stale = check(dir, known);
  assert.equal(stale.status, 1, stale.out);
  assert.match(stale.out, /no longer a cycle.*net -> store -> net/);
  writeFileSync(known, '');
  assert.equal(check(dir, known).status, 1);
});

test('a cycle planted in a copy of host/src is found; the copy as it is has none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'deferral-cycles-host-'));
  cpSync(join(repoRoot, 'host/src'), dir, { recursive: true });
  const asIs = check(dir);
  assert.equal(asIs.status, 0, asIs.out);
  const transport = join(dir, 'github/transport.rs');
  writeFileSync(transport, `${readFileSync(transport, 'utf8')}\n#[allow(dead_code)]\nfn planted(c: &super::client::GithubClient) {}\n`);
  const planted = check(dir);
  assert.equal(planted.status, 1, planted.out);
  assert.match(planted.out, /github::client -> github::transport -> github::client/);
});
