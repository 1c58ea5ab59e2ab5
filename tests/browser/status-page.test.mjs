// The status page in a real browser: a fixture store (two waiting deferrals, one complete, one
// blocked, one cancelled) made with the real deferral-host, `status --html` writes the page,
// and headless Chromium (Debian package `chromium`) parses it (--dump-dom: the text is there,
// nothing from the store became markup) and screenshots it (decoded: the page rendered, not a
// blank screen). Then the page as a person opens it: `serve`'s `GET /` in Chromium with no
// token in the address, the browser's Basic prompt answered with the token as the password
// (over the DevTools protocol's Fetch.authRequired, as a driver's page.authenticate does),
// the pools and their forecast shown, and the token in no URL, page or log.
// scripts/test.sh runs it; .ci/run installs chromium.
// Usage: node --test tests/browser/status-page.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { hostBinary, ensureHostBinary, startServe } from '../support/host-serve.mjs';
import { launchChromium } from '../support/cdp-pipe.mjs';
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

/** A gate's deferred line for pool work: REST spent (0 of 45 left, reserve 5) until `resetS`. */
function gateLine(resetS, afterMs, windowMs, n) {
  const receipt = JSON.parse(handoff(afterMs + n, windowMs));
  return JSON.stringify({
    status: 'deferred', mode: 'gate', code: 'core-below-reserve',
    rest: { limit: 45, remaining: 0, reserve: 5, plannedCost: 10, reset: resetS, ok: false },
    graphql: null, plan: { rest: 10, graphql: 0, contentCreating: 10 }, deferredReceipt: receipt,
  });
}

test('serve\'s page in Chromium: no token in the address, the Basic prompt answered with the token, the forecast shown, the token nowhere', { timeout: 180_000 }, async () => {
  const serve = await startServe({ allowLaunch: ['exec:'] });
  const dir = mkdtempSync(join(tmpdir(), 'deferral-page-login-'));
  let browser;
  try {
    // 5 jobs of 10 in a window that gives 40 after its reset: the fifth starts a window later,
    // after its own window ends.
    const resetS = Math.floor(Date.now() / 1000) + 60;
    const afterMs = resetS * 1000 - Date.now();
    const recorded = [];
    for (let n = 0; n < 5; n += 1) {
      const run = spawnSync(hostBinary, ['--store', `sqlite:${serve.db}`, 'record', '--launch', 'exec:/bin/true', '--pool', 'app-42', '-'],
        { input: gateLine(resetS, afterMs, 10 * MINUTE, n), encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      recorded.push(JSON.parse(run.stdout.trim().split('\n').at(-1)));
    }
    const late = recorded[4];
    assert.equal(late.will_expire, true, JSON.stringify(late));
    const pools = await (await fetch(`${serve.url}/v1/pools`, { headers: { authorization: `Bearer ${serve.token}` } })).json();
    const drain = pools.pools[0].expected_drain;
    assert.match(drain, /^\d{4}-\d\d-\d\dT/);

    browser = await launchChromium(dir);
    const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
    const page = (method, params) => browser.send(method, params, sessionId);
    const urls = [];
    const prompts = [];
    let answer = 'CancelAuth';
    browser.on((event) => {
      if (event.sessionId !== sessionId) return;
      const p = event.params ?? {};
      if (p.request?.url) urls.push(p.request.url);
      if (p.documentURL) urls.push(p.documentURL);
      if (p.frame?.url) urls.push(p.frame.url);
      if (event.method === 'Fetch.requestPaused') page('Fetch.continueRequest', { requestId: p.requestId });
      if (event.method === 'Fetch.authRequired') {
        // What the browser's prompt is asked for, and what its user types into it.
        prompts.push(p.authChallenge);
        const authChallengeResponse = answer === 'ProvideCredentials'
          ? { response: answer, username: 'operator', password: serve.token } : { response: answer };
        page('Fetch.continueWithAuth', { requestId: p.requestId, authChallengeResponse });
      }
    });
    await page('Network.enable');
    await page('Page.enable');
    await page('Fetch.enable', { handleAuthRequests: true, patterns: [{ urlPattern: '*' }] });
    const open = async (navigate) => {
      const since = browser.mark();
      await navigate();
      await browser.waitFor((e) => e.sessionId === sessionId && e.method === 'Page.loadEventFired', 30_000, 'page load', since);
      const doc = await browser.waitFor((e) => e.sessionId === sessionId && e.method === 'Network.responseReceived'
        && e.params.type === 'Document', 30_000, 'the document\'s answer', since);
      const html = await page('Runtime.evaluate', { expression: 'document.documentElement.outerHTML', returnByValue: true });
      return { status: doc.params.response.status, html: html.result.value };
    };
    const pageUrl = `${serve.url}/`;

    // Cancelled, the prompt leaves the 401's page, which says what to enter.
    const cancelled = await open(() => page('Page.navigate', { url: pageUrl }));
    assert.equal(cancelled.status, 401);
    assert.equal(prompts.length, 1, 'the browser asked for credentials');
    assert.deepEqual([prompts[0].source, prompts[0].scheme, prompts[0].realm], ['Server', 'basic', 'deferral']);
    assert.match(cancelled.html, /any user name and the serve token .*as the password/s);
    assert.doesNotMatch(cancelled.html, /Deferrals by state/);

    // Answered with the token as the password: the page, with the pools and their forecast.
    answer = 'ProvideCredentials';
    const opened = await open(() => page('Page.navigate', { url: pageUrl }));
    assert.equal(opened.status, 200);
    assert.equal(prompts.length, 2);
    const text = opened.html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    assert.match(text, /Deferrals by state \(5 in all\)/);
    assert.match(text, new RegExp(`app-42 .* expected drain ${drain} `), 'the pool\'s drain time, as GET /v1/pools has it');
    const lateRow = opened.html.split('\n').find((l) => l.includes(late.id) && l.includes('<td>'));
    assert.ok(lateRow?.includes(late.expected_start) && lateRow.includes('will-expire'), `the fifth job's row: ${lateRow}`);
    assert.equal(opened.html.match(/will-expire/g)?.length, 1, 'only the fifth will expire');

    // Reloaded, the browser sends what it was given: no second prompt.
    answer = 'CancelAuth';
    const again = await open(() => page('Page.reload'));
    assert.equal(again.status, 200);
    assert.equal(prompts.length, 2, 'no new prompt on reload');

    const history = await page('Page.getNavigationHistory');
    urls.push(...history.entries.map((e) => e.url));
    assert.ok(urls.some((u) => u === pageUrl), `the page was requested: ${urls.join(' ')}`);
    const secrets = [serve.token, encodeURIComponent(serve.token), Buffer.from(`operator:${serve.token}`).toString('base64')];
    for (const secret of secrets) {
      assert.ok(urls.every((u) => !u.includes(secret) && !u.includes('@')), `no URL holds the token: ${urls.join(' ')}`);
      assert.ok(!opened.html.includes(secret) && !cancelled.html.includes(secret), 'the page does not hold the token');
    }
    const log = serve.log();
    assert.ok(log.includes('GET / 401') && log.includes('GET / 200'), log.join('\n'));
    for (const secret of secrets) {
      assert.ok(log.every((l) => !l.includes(secret)), `the log holds no token: ${log.join('\n')}`);
    }
    assert.ok(log.every((l) => !/authorization|basic /i.test(l)), log.join('\n'));
  } finally {
    await browser?.close();
    await serve.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
