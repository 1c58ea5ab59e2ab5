// The operator guide (skills/deferral/SKILL.md) followed to the letter: its plan, its gate and
// record commands and its resume script are taken from the guide as written and run in a
// temporary folder, against a loopback stand-in for GitHub, with the real `deferral` CLI (dist/)
// and `deferral-host`. A scheduler's ticks (the test) then wake the deferral, and the guide's
// script must take it to `complete`. The wait is real: the gate's default 60 s buffer and its
// jitter apply, so this takes a bit over a minute; scripts/test.sh runs it once.
// Usage: node --test tests/skill/skill-script.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { repoRoot, cliPath } from '../node/helpers.mjs';
import { hostBinary, ensureHostBinary } from '../support/host-serve.mjs';

const TEST_TOKEN = 'test-token-not-real';

/** The first fenced block of each `### N.` step of the guide, keyed by step number. */
function stepBlocks(markdown) {
  const blocks = {};
  for (const section of markdown.split(/^### /m).slice(1)) {
    const step = /^(\d+)\./.exec(section)?.[1];
    const block = /^```(\w+)\n([\s\S]*?)^```/m.exec(section);
    if (step && block) blocks[step] = { lang: block[1], text: block[2] };
  }
  return blocks;
}

/** The commands of a console block: `$ ` lines, with `\` continuations joined. */
function commands(consoleText) {
  const out = [];
  for (const line of consoleText.split('\n')) {
    if (line.startsWith('$ ')) out.push(line.slice(2));
    else if (out.length && /\\$/.test(out.at(-1))) out[out.length - 1] = `${out.at(-1).slice(0, -1)}${line.trim()}`;
  }
  return out;
}

/** GET /rate_limit: the REST window nearly spent (resets in 2 s) on the first request, full after. */
function startGitHubStandIn() {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method, url: req.url, auth: req.headers.authorization });
    const now = Math.floor(Date.now() / 1000);
    const spent = seen.length === 1;
    const core = spent
      ? { limit: 5000, used: 4995, remaining: 5, reset: now + 2 }
      : { limit: 5000, used: 0, remaining: 5000, reset: now + 3600 };
    const resources = { core, graphql: { limit: 5000, used: 0, remaining: 5000, reset: now + 3600 } };
    if (req.url !== '/rate_limit') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Not Found' }));
      return;
    }
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      date: new Date().toUTCString(),
      'x-ratelimit-limit': String(core.limit),
      'x-ratelimit-remaining': String(core.remaining),
      'x-ratelimit-used': String(core.used),
      'x-ratelimit-reset': String(core.reset),
      'x-ratelimit-resource': 'core',
    });
    res.end(JSON.stringify({ resources, rate: core }));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, seen, url: `http://127.0.0.1:${server.address().port}` })));
}

test('SKILL.md followed as written: gate defers, record, tick wakes the resume script, complete', { timeout: 180_000 }, async () => {
  ensureHostBinary();
  const guide = readFileSync(join(repoRoot, 'skills/deferral/SKILL.md'), 'utf8');
  const blocks = stepBlocks(guide);
  assert.equal(blocks[1]?.lang, 'json', 'step 1 shows the plan as JSON');
  assert.equal(blocks[3]?.lang, 'sh', 'step 3 shows the resume script');
  const github = await startGitHubStandIn();
  const home = mkdtempSync(join(tmpdir(), 'deferral-skill-home-'));
  const dir = join(home, 'relabel');
  const bin = join(home, 'bin');
  try {
    for (const d of [dir, bin, join(home, '.config/relabel')]) mkdirSync(d, { recursive: true });
    // What `npm install` gives an operator: `deferral` on the PATH (pointed at the stand-in;
    // the host clears the environment of what it launches, so the address lives here).
    writeFileSync(join(bin, 'deferral'), `#!/bin/sh\nGITHUB_API_URL='${github.url}' exec '${process.execPath}' '${cliPath}' "$@"\n`, { mode: 0o755 });
    writeFileSync(join(home, '.config/relabel/token'), `${TEST_TOKEN}\n`, { mode: 0o600 });
    // The guide's files, as written; relabel.sh stands for the operator's own batch.
    writeFileSync(join(dir, 'plan.json'), blocks[1].text);
    writeFileSync(join(dir, 'relabel.sh'), '#!/bin/sh\necho "relabelled after a fresh preflight" > relabel.done\n', { mode: 0o755 });

    const env = { PATH: `${bin}:${dirname(hostBinary)}:${process.env.PATH}`, HOME: home, LANG: 'C.UTF-8' };
    // Asynchronous: the stand-in answers from this process, so the event loop must keep running.
    const shell = (script) => new Promise((resolve) => {
      const child = spawn('sh', ['-c', script], { cwd: dir, env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => { stdout += d; });
      child.stderr.on('data', (d) => { stderr += d; });
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    // Steps 2, 3 and 4 in their order, as one shell session (step 2 exports GH_TOKEN for the
    // gate; step 3's script is written, and made executable, before step 4 records it).
    const script = blocks[3].text.endsWith('\n') ? blocks[3].text : `${blocks[3].text}\n`;
    const writeScript = `cat > resume-relabel.sh <<'DEFERRAL_GUIDE_EOF'\n${script}DEFERRAL_GUIDE_EOF\nchmod +x resume-relabel.sh`;
    const session = [...commands(blocks[2].text), writeScript, ...commands(blocks[4].text)].join('\n');
    const ran = await shell(session);
    const lines = ran.stdout.trim().split('\n');
    assert.equal(lines.find((l) => /^\d+$/.test(l)), '6', `the gate defers (echo $? prints 6):\n${ran.stdout}${ran.stderr}`);
    assert.equal(ran.status, 0, `record succeeds:\n${ran.stdout}${ran.stderr}`);
    const recorded = JSON.parse(lines.at(-1));
    assert.equal(recorded.receipt.ownership.disposition, 'retained');
    assert.match(recorded.cancellation_handle, /^[0-9a-f]{64}$/);
    assert.equal(github.seen.length, 1, 'the gate made exactly one request');
    assert.ok(!existsSync(join(dir, 'relabel.done')), 'the batch has not run yet');

    // The scheduler: tick as step 5 shows it, every 2 s, until the deferral leaves `deferred`.
    const tickLine = commands(blocks[5].text).find((c) => / tick\b/.test(c));
    assert.ok(tickLine, 'step 5 shows the tick command');
    const statusOf = () => JSON.parse(spawnSync(hostBinary, ['--store', `sqlite:${home}/.deferral/host.db`, 'status', '--json', recorded.id], { encoding: 'utf8' }).stdout).state;
    const deadline = Date.now() + 150_000;
    let state = statusOf();
    while (state === 'deferred' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2000));
      const tick = await shell(tickLine);
      assert.equal(tick.status, 0, `tick: ${tick.stdout}${tick.stderr}`);
      state = statusOf();
    }
    const show = spawnSync(hostBinary, ['--store', `sqlite:${home}/.deferral/host.db`, 'show', recorded.id], { encoding: 'utf8' }).stdout;
    assert.equal(state, 'complete', `the guide's resume script completes the deferral:\n${show}`);
    assert.equal(readFileSync(join(dir, 'relabel.done'), 'utf8'), 'relabelled after a fresh preflight\n');
    assert.equal(github.seen.length, 2, 'the fresh preflight read the rate state once more');
    assert.equal(github.seen[1].auth, `Bearer ${TEST_TOKEN}`, 'with the token from the file the script reads');
  } finally {
    github.server.close();
    rmSync(home, { recursive: true, force: true });
  }
});
