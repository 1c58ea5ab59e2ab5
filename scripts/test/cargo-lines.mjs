#!/usr/bin/env node
// Reads `cargo test`'s output (stdout and stderr together) on stdin and prints one line per test
// binary, named by its crate and file, with its counts and time: cargo's "Compiling" lines, the
// per-test "... ok" lines and the empty blocks are left out, everything else (a failure's
// output, a warning, a compile error, what a test's child process writes) passes through as it
// came. The whole output goes to LOG. The last line sums the counts; --counts FILE also writes
// that sum there (for scripts/test.sh's summary).
// Usage: cargo test ... 2>&1 | node scripts/test/cargo-lines.mjs LOG [--counts FILE]
import { execFileSync } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { createInterface } from 'node:readline';

const [log, flag, countsFile] = process.argv.slice(2);
if (!log || (flag !== undefined && (flag !== '--counts' || !countsFile))) {
  console.error('usage: cargo test ... 2>&1 | node scripts/test/cargo-lines.mjs LOG [--counts FILE]');
  process.exit(2);
}
const full = createWriteStream(log);

// Test binaries by (file name before the hash, source path in its package) -> "crate path".
const metadata = JSON.parse(execFileSync('cargo', ['metadata', '--no-deps', '--format-version', '1'], { encoding: 'utf8' }));
const names = new Map();
for (const pkg of metadata.packages) {
  const root = pkg.manifest_path.replace(/\/Cargo\.toml$/, '');
  for (const t of pkg.targets) names.set(`${t.name.replaceAll('-', '_')} ${relative(root, t.src_path)}`, pkg.name);
}
const label = (file, binary) => `${names.get(`${binary.replace(/-[0-9a-f]+$/, '')} ${file}`) ?? '?'} ${file}`;

const total = { binaries: 0, passed: 0, failed: 0, ignored: 0 };
let current = null; // the binary whose block is being read
let compiled = 0;
let failures = false; // inside a failing binary's report, whose blank lines are kept
const NOISE = [/^\s*Compiling /, /^\s*Finished /, /^\s*Blocking waiting for file lock/, /^test .* \.\.\. ok$/, /^running \d+ tests?$/, /^$/];

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  full.write(`${line}\n`);
  if (/^\s*Compiling /.test(line)) compiled += 1;
  const running = /^\s*Running (?:unittests )?(\S+) \(.*\/deps\/([^)/]+)\)$/.exec(line);
  const doc = /^\s*Doc-tests (\S+)$/.exec(line);
  if (/^failures:$/.test(line)) failures = true;
  if (running) { current = label(running[1], running[2]); continue; }
  if (doc) { current = `${names.get(`${doc[1]} src/lib.rs`) ?? doc[1]} doc-tests`; continue; }
  const result = /^test result: (\w+)\. (\d+) passed; (\d+) failed; (\d+) ignored;.* finished in ([\d.]+)s$/.exec(line);
  if (result) {
    const [, , passed, failed, ignored, seconds] = result;
    total.binaries += 1;
    total.passed += Number(passed);
    total.failed += Number(failed);
    total.ignored += Number(ignored);
    const counts = Number(passed) + Number(failed) + Number(ignored) === 0 ? 'no tests'
      : `${passed} passed${failed !== '0' ? `, ${failed} FAILED` : ''}${ignored !== '0' ? `, ${ignored} ignored` : ''}`;
    console.log(`  ${failed === '0' ? 'ok    ' : 'FAILED'} ${(current ?? '?').padEnd(50)} ${counts.padEnd(22)} ${Number(seconds).toFixed(2)} s`);
    current = null;
    failures = false;
    continue;
  }
  if (!(failures && line === '') && NOISE.some((re) => re.test(line))) continue;
  console.log(line);
}
full.end();
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
const sum = `${total.passed} passed, ${total.failed} failed, ${total.ignored} ignored in ${plural(total.binaries, 'test binary', 'test binaries')}`
  + `${compiled ? ` (${plural(compiled, 'crate', 'crates')} compiled first)` : ''}`;
console.log(`  cargo test: ${sum}`);
if (countsFile) writeFileSync(countsFile, `${sum}\n`);
