// Every relative link of the project's Markdown (README.md, CHANGELOG.md, BENCHMARKS.md, every
// page under docs/) names a file that exists and, when it has an anchor (`page.md#section`, or
// `#section` on the same page), a heading of that page that makes that anchor by GitHub's rules.
// A section moved to another page, or renamed, fails here until every link to it follows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { repoRoot } from './helpers.mjs';

/** The Markdown files checked, relative to the repository's root. */
function markdownFiles() {
  const under = (dir) => readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return under(rel);
    return e.name.endsWith('.md') ? [rel] : [];
  });
  return ['README.md', 'CHANGELOG.md', 'BENCHMARKS.md', ...under('docs')].filter((f) => existsSync(join(repoRoot, f)));
}

/** The text without fenced code blocks (``` or ~~~), each line of one kept as an empty line. */
function withoutFences(text) {
  let fence = null;
  return text.split('\n').map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length) fence = null;
      return '';
    }
    if (m) {
      fence = m[1];
      return '';
    }
    return line;
  }).join('\n');
}

/** GitHub's anchor for a heading's text: the text as rendered (links and images by their text,
 * no HTML tags, no emphasis marks), lowercased, every character but letters, digits, `_`, `-`
 * and spaces removed, spaces made `-`. */
export function slug(heading) {
  const rendered = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/\*/g, '');
  return rendered.trim().toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

/** The anchors a Markdown text's headings make (a repeated one gets `-1`, `-2`, ... as on GitHub),
 * and those of HTML `id`/`name` attributes. */
export function anchors(text) {
  const seen = new Map();
  const found = new Set();
  for (const line of withoutFences(text).split('\n')) {
    const m = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of text.matchAll(/<a\s[^>]*(?:name|id)="([^"]+)"/g)) found.add(m[1]);
  return found;
}

/** The targets of a Markdown text's inline links and images, outside code, with their lines. */
export function links(text) {
  const lines = withoutFences(text).split('\n');
  return lines.flatMap((line, i) => {
    const prose = line.replace(/(`+)[^`]*?\1/g, '');
    return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({ target: m[1], line: i + 1 }));
  });
}

/** What is wrong with the relative links of `file` (relative to the root): `[]` when nothing. */
export function brokenLinks(file, read = (f) => readFileSync(join(repoRoot, f), 'utf8'), exists = (f) => existsSync(join(repoRoot, f))) {
  const text = read(file);
  const problems = [];
  for (const { target, line } of links(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:, ...
    const [pathPart, anchor] = target.split('#', 2);
    const path = decodeURIComponent(pathPart.split('?')[0]);
    const to = path === '' ? file : relative(repoRoot, join(repoRoot, dirname(file), path));
    const where = `${file}:${line}: ${target}`;
    if (to.startsWith('..')) {
      problems.push(`${where}: leaves the repository`);
      continue;
    }
    if (!exists(to)) {
      problems.push(`${where}: no file ${to}`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (!to.endsWith('.md')) continue; // a line anchor of a source file, say
    if (!anchors(read(to)).has(decodeURIComponent(anchor))) problems.push(`${where}: no heading of ${to} makes #${anchor}`);
  }
  return problems;
}

test('there are Markdown files to check, with relative links in them', () => {
  const files = markdownFiles();
  assert.ok(files.includes('README.md') && files.includes('docs/host.md'), files.join(' '));
  assert.ok(files.flatMap((f) => links(readFileSync(join(repoRoot, f), 'utf8'))).length > 100);
});

test('every relative link names a file that exists, and an anchor a heading there makes', () => {
  const isFile = (f) => existsSync(join(repoRoot, f)) && (statSync(join(repoRoot, f)).isFile() || statSync(join(repoRoot, f)).isDirectory());
  const problems = markdownFiles().flatMap((f) => brokenLinks(f, undefined, isFile));
  assert.deepEqual(problems, []);
});

test("anchors follow GitHub's rules", () => {
  assert.equal(slug('`run`: the host as one service'), 'run-the-host-as-one-service');
  assert.equal(slug("The host's own `GET /rate_limit`: `tick --rate-limit-pool NAME`"), 'the-hosts-own-get-rate_limit-tick---rate-limit-pool-name');
  assert.equal(slug('`exec:/PROGRAM [ARGS]`'), 'execprogram-args');
  assert.equal(slug('Windows: the pool\'s ledger'), 'windows-the-pools-ledger');
  assert.equal(slug('A [linked](x.md) *heading*'), 'a-linked-heading');
  assert.deepEqual([...anchors('# A\n## A\n```\n# not a heading\n```\n### A #\n')], ['a', 'a-1', 'a-2']);
});

test('a broken link is reported (the check is live)', () => {
  const docs = {
    'docs/a.md': '# A\n\n## Where it is\n\nSee [b](b.md#there), [gone](b.md#gone), [missing](c.md), [here](#where-it-is), [not](#nowhere).\n`[code](nowhere.md)` and\n```\n[fenced](nowhere.md)\n```\n[web](https://example.com/x.md#y)\n',
    'docs/b.md': '# B\n\n### There\n',
  };
  const problems = brokenLinks('docs/a.md', (f) => docs[f], (f) => f in docs);
  assert.deepEqual(problems, [
    'docs/a.md:5: b.md#gone: no heading of docs/b.md makes #gone',
    'docs/a.md:5: c.md: no file docs/c.md',
    'docs/a.md:5: #nowhere: no heading of docs/a.md makes #nowhere',
  ]);
});
