// The job summary shows words from outside (a plan's keys, a receipt's, a durable port's error
// code and message) as text, never as live Markdown: rendered by a real CommonMark + GFM
// implementation (markdown-it with raw HTML on and bare URLs linked, as GitHub does), hostile
// text gives no link, image, raw HTML, heading or emphasis, whatever backticks it holds.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { startFakeGitHub } from '../support/fake-github.mjs';
import { runAction } from '../support/run-action.mjs';
import { startHostilePort } from '../support/hostile-port.mjs';

const md = new MarkdownIt({ html: true, linkify: true });
const servers = [];
after(() => Promise.all(servers.map((s) => s.close())));
async function started(server) {
  servers.push(await server);
  return servers.at(-1);
}

/** Every trick, with and without backticks to break out of a code span. */
const HOSTILE = [
  '[x](http://evil.example/a) ![t](http://evil.example/i.png) <img src=x> *e* _u_ **s** | http://evil.example/b',
  '` [x](http://evil.example/a) ` ![t](http://evil.example/i.png) `` <img src=x> ``` *e* ````',
  '`\n# h\n<script>alert(1)</script>\n- [x](http://evil.example/a)\n\n![t](http://evil.example/i.png)',
];

/** The tags our own summary draws; anything else came from the hostile text. */
const OURS = new Set(['h3', 'p', 'code', 'ul', 'li', 'details', 'summary', 'pre', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong']);

function assertInert(summary, what) {
  const html = md.render(summary);
  const tags = [...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1].toLowerCase());
  const strange = tags.filter((t) => !OURS.has(t));
  assert.deepEqual(strange, [], `${what}: live HTML or Markdown in\n${summary}\n---\n${html}`);
  assert.equal(tags.filter((t) => t === 'h3').length, 2, `${what}: only our heading (open and close)\n${html}`);
  assert.ok(!/<strong>(?!no<\/strong>)/.test(html), `${what}: only our own **no** is strong\n${html}`);
  const attributes = (html.match(/<[a-zA-Z][^>]*>/g) ?? []).filter((t) => /\s(href|src|on\w+)=/i.test(t));
  assert.deepEqual(attributes, [], `${what}: a link or an image\n${html}`);
  assert.ok(!html.includes('&amp;lt;'), `${what}: text escaped twice reads wrong\n${html}`);
  return html;
}

/** A piece of every hostile text that a reader must still see, as text. */
const PIECE = '![t](http://evil.example/i.png)';

test('a plan key holding Markdown and backticks is shown as text', async () => {
  for (const key of HOSTILE) {
    const gh = await started(startFakeGitHub({ scenario: 'ready' }));
    const plan = JSON.stringify({ rest: [{ method: 'GET', route: '/x', [key]: 1 }] });
    const run = await runAction(gh.url, { plan });
    assert.equal(run.outputs.status, 'error', run.stdout);
    assert.match(run.summary, /invalid-plan/);
    const html = assertInert(run.summary, `plan key ${JSON.stringify(key)}`);
    assert.ok(html.includes(PIECE), `the key is there to read\n${html}`);
    run.cleanup();
  }
});

test('a receipt holding Markdown is shown as text', async () => {
  for (const key of HOSTILE) {
    const gh = await started(startFakeGitHub({ scenario: 'ready' }));
    const run = await runAction(gh.url, { receipt: JSON.stringify({ schema: 'deferred-receipt-v1', [key]: key }) });
    assert.equal(run.outputs.status, 'error', run.stdout);
    assertInert(run.summary, `receipt member ${JSON.stringify(key)}`);
    run.cleanup();
  }
});

test("a durable port's error code and message holding Markdown are shown as text", async () => {
  for (const text of HOSTILE) {
    const gh = await started(startFakeGitHub({ scenario: 'rest-low' }));
    const port = await started(startHostilePort(() => ({ status: 500, body: { error: { code: text, message: text } } })));
    const run = await runAction(gh.url, { 'coordinator-url': port.url, 'coordinator-token': 'test-token-not-real', 'coordinator-launch': 'workflow-dispatch:o/r/w.yml@main' });
    assert.equal(run.outputs.status, 'error', run.stdout);
    assert.match(run.summary, /coordinator-failed/);
    const html = assertInert(run.summary, `port error ${JSON.stringify(text)}`);
    assert.ok(html.includes(PIECE), `the port's words are there to read\n${html}`);
    run.cleanup();
  }
});

test('scope and request text never reach the summary, Markdown or not', async () => {
  const gh = await started(startFakeGitHub({ scenario: 'rest-low' }));
  const run = await runAction(gh.url, { scope: HOSTILE[0], request: HOSTILE[1], 'on-deferral': 'succeed' });
  assert.equal(run.outputs.status, 'deferred', run.stdout);
  assertInert(run.summary, 'deferred with hostile scope');
  assert.ok(!run.summary.includes('evil.example'), run.summary);
  run.cleanup();
});
