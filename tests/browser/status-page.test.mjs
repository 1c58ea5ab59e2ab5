// The status page in a real browser: a fixture store (two waiting deferrals, one complete, one
// blocked, one cancelled) made with the real deferral-host, `status --html` writes the page,
// and headless Chromium (Debian package `chromium`) parses it (--dump-dom: the text is there,
// nothing from the store became markup) and screenshots it (decoded: the page rendered, not a
// blank screen). scripts/test.sh runs it; .ci/run installs chromium.
// Usage: node --test tests/browser/status-page.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hostBinary, ensureHostBinary } from '../support/host-serve.mjs';
import { decodePng, pixelVariety } from '../support/png.mjs';

const MINUTE = 60_000;
const CHROMIUM = process.env.CHROMIUM ?? 'chromium';

/** A handoff receipt in the contract's shape, due `afterMs` from now, resumable for `windowMs`. */
function handoff(afterMs, windowMs) {
  const now = Date.now();
  return JSON.stringify({
    schema: 1, version: 'deferred-receipt-v1', status: 'deferred', reason: 'rest-reserve',
    issued_at_ms: now, resume_after_ms: now + afterMs, resume_by_ms: now + afterMs + windowMs,
    bindings: { scope_digest: 'a'.repeat(64), request_digest: 'b'.repeat(64), plan_digest: null },
    ownership: { disposition: 'handoff', mode: 'governed-handoff', wakeup_digest: null, cancellation_digest: null },
    fresh_approval_required: true,
  });
}

function chromium(dir, args) {
  const run = spawnSync(CHROMIUM, [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--user-data-dir=${mkdtempSync(join(dir, 'profile-'))}`, ...args,
  ], { encoding: 'utf8', timeout: 90_000, maxBuffer: 1 << 24 });
  if (run.error?.code === 'ENOENT') {
    assert.fail(`${CHROMIUM} is not installed: apt-get install chromium (Debian), or set CHROMIUM to a Chromium binary`);
  }
  assert.equal(run.status, 0, `chromium ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

test('status --html renders in headless Chromium: counts, pending windows, outcomes with causes', { timeout: 180_000 }, () => {
  ensureHostBinary();
  const dir = mkdtempSync(join(tmpdir(), 'deferral-status-page-'));
  try {
    const store = `sqlite:${join(dir, 'host.db')}`;
    const host = (args, input = '') => {
      const run = spawnSync(hostBinary, ['--store', store, ...args], { input, encoding: 'utf8' });
      assert.equal(run.status, 0, `deferral-host ${args.join(' ')}: ${run.stdout}${run.stderr}`);
      return JSON.parse(run.stdout.trim().split('\n').at(-1));
    };
    host(['init']); // only init creates a store
    const record = (launch, afterMs, windowMs) => host(['record', '--launch', launch, '-'], handoff(afterMs, windowMs));
    const soon = record('exec:/bin/true', 20 * MINUTE, 2 * 60 * MINUTE);
    const later = record('exec:/bin/true', 50 * MINUTE, 3 * 60 * MINUTE);
    const completes = record('exec:/bin/true', 0, 60 * MINUTE);
    const blocks = record('exec:/bin/false', 0, 60 * MINUTE);
    const cancelled = record('exec:/bin/true', 10 * MINUTE, 60 * MINUTE);
    host(['cancel', cancelled.id, '--handle', cancelled.cancellation_handle]);
    const tick = host(['tick', '--quiet']);
    assert.equal(tick.launched.length, 2);

    const pagePath = join(dir, 'status.html');
    const written = host(['status', '--html', pagePath]);
    assert.equal(written.deferrals, 5);
    const page = readFileSync(pagePath, 'utf8');
    assert.doesNotMatch(page, /<script|\bsrc=|\bhref=|url\(/i, 'self-contained: no script, no external asset');

    const dom = chromium(dir, ['--dump-dom', pathToFileURL(pagePath).href]);
    const text = dom.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    assert.match(text, /Deferrals by state \(5 in all\)/);
    for (const [n, state] of [[2, 'deferred'], [1, 'complete'], [1, 'blocked'], [1, 'cancelled'], [0, 'resumable']]) {
      assert.match(text, new RegExp(` ${n} ${state} `), `count of ${state}`);
    }
    assert.match(text, new RegExp(`${soon.id} · deferred, in (19|20) min`), 'the timeline names each pending window');
    assert.match(text, new RegExp(`${later.id} · deferred, in (49|50) min`));
    assert.ok(text.indexOf(soon.id) < text.indexOf(later.id), 'earliest window first');
    assert.match(text, new RegExp(`${blocks.id} blocked blocked exit 1`), 'the blocked outcome with its cause and detail');
    assert.match(text, new RegExp(`${completes.id} complete completed exit 0`));
    assert.match(text, new RegExp(`${cancelled.id} cancelled operator \\d+/\\d+ `), 'a cancel says "operator" once, not as cause and detail');

    // No timestamp wraps mid-date, even in a narrow window: a copy of the page (its CSP, which
    // forbids scripts, taken out) counts the timestamps the browser laid out on several lines.
    const probePath = join(dir, 'probe.html');
    const probe = page.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '').replace('</body>', `<script>
      let n = 0, wrapped = 0;
      const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      while (walk.nextNode()) {
        const t = walk.currentNode;
        if (t.parentElement.closest('svg, style, script')) continue;
        for (const m of t.data.matchAll(/\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?Z/g)) {
          const r = document.createRange();
          r.setStart(t, m.index);
          r.setEnd(t, m.index + m[0].length);
          n += 1;
          if (new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size > 1) wrapped += 1;
        }
      }
      document.body.dataset.timestamps = n;
      document.body.dataset.wrapped = wrapped;
    </script></body>`);
    writeFileSync(probePath, probe);
    const narrow = chromium(dir, ['--window-size=360,700', '--dump-dom', pathToFileURL(probePath).href]);
    const timestamps = Number(/data-timestamps="(\d+)"/.exec(narrow)?.[1]);
    assert.ok(timestamps >= 4, `the probe found the page's timestamps: ${timestamps}`);
    assert.match(narrow, /data-wrapped="0"/, 'no timestamp is broken over two lines');

    const shot = join(dir, 'status.png');
    chromium(dir, ['--window-size=1000,700', '--hide-scrollbars', `--screenshot=${shot}`, pathToFileURL(pagePath).href]);
    const image = decodePng(readFileSync(shot));
    assert.deepEqual([image.width, image.height], [1000, 700]);
    const variety = pixelVariety(image);
    assert.ok(variety.colours >= 20, `a rendered page has text and coloured bars: ${JSON.stringify(variety)}`);
    assert.ok(variety.differingShare > 0.02 && variety.differingShare < 0.9, `not blank, not one flat colour: ${JSON.stringify(variety)}`);

    // The same check fails on an empty page, so it tells a rendered page from a blank one.
    const blankPath = join(dir, 'blank.html');
    writeFileSync(blankPath, '<!DOCTYPE html><html><body></body></html>');
    const blankShot = join(dir, 'blank.png');
    chromium(dir, ['--window-size=1000,700', '--hide-scrollbars', `--screenshot=${blankShot}`, pathToFileURL(blankPath).href]);
    const blank = pixelVariety(decodePng(readFileSync(blankShot)));
    assert.ok(blank.colours < 20 || blank.differingShare <= 0.02, `a blank page counts as blank: ${JSON.stringify(blank)}`);
  } finally {
    if (process.env.KEEP_PAGE) console.log(`kept ${dir}`); else rmSync(dir, { recursive: true, force: true });
  }
});
