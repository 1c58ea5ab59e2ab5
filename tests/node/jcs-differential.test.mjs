// Differential test of the canonical JSON behind every digest: the Rust core (through wasm)
// against ECMAScript itself, which RFC 8785 is defined by (JSON.stringify for strings and
// numbers, UTF-16 code-unit order for member names).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { digest } from '../../dist/lib/wasm.js';

// Reference JCS in a few lines: only valid because JS is the language the RFC defers to.
function reference(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const keys = Object.keys(value).sort(); // default sort compares UTF-16 code units
  return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(value[k])}`).join(',')}}`;
}

// A small deterministic generator (xorshift) so a failure can be replayed.
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 2 ** 32; };
}

function randomDouble(r) {
  const view = new DataView(new ArrayBuffer(8));
  for (;;) {
    view.setUint32(0, Math.floor(r() * 2 ** 32));
    view.setUint32(4, Math.floor(r() * 2 ** 32));
    const x = view.getFloat64(0);
    if (Number.isFinite(x)) return x;
  }
}

const ALPHABET = ['a', 'b', 'Z', '1', ' ', '"', '\\', '\n', '\u0001', '\u007f', '\u0080', 'é', '€', '\u{1F600}', '\ufb33', '/'];
function randomString(r) {
  let s = '';
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return s;
}

function randomValue(r, depth) {
  const pick = Math.floor(r() * (depth > 2 ? 5 : 7));
  switch (pick) {
    case 0: return null;
    case 1: return r() < 0.5;
    case 2: return randomDouble(r);
    case 3: return Math.floor((r() - 0.5) * 2 ** 40);
    case 4: return randomString(r);
    case 5: return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const obj = {};
      for (let i = Math.floor(r() * 5); i > 0; i--) obj[randomString(r)] = randomValue(r, depth + 1);
      return obj;
    }
  }
}

test('canonical form and digest agree with ECMAScript on 3000 random documents', () => {
  const r = rng(20261130);
  for (let i = 0; i < 3000; i++) {
    const value = randomValue(r, 0);
    const text = JSON.stringify(value);
    const got = digest('value', text);
    assert.equal(got.ok, true, text);
    const want = reference(value);
    assert.equal(got.canonical, want, `case ${i}: ${text}`);
    assert.equal(got.digest, createHash('sha256').update(want).digest('hex'));
  }
});

test('numbers at the edges of ECMAScript formatting', () => {
  const samples = [0, -0, 5e-324, 1e21, 1e-7, 123456789012345680000, 0.1 + 0.2, 1424953923781206.2, -1e-6, 2 ** 53, 1.5e300];
  for (const x of samples) {
    assert.equal(digest('value', `[${JSON.stringify(x)}]`).canonical, `[${JSON.stringify(x)}]`, String(x));
  }
});

test('a number beyond the range of a double is refused as data, and the module keeps working', () => {
  for (const text of ['{"a":1e400}', '[-1e999]']) {
    const got = digest('value', text);
    assert.equal(got.ok, false, text);
    assert.equal(got.error.code, 'non-canonical-number');
  }
  // The instance survived: a normal call still answers.
  assert.equal(digest('value', '{"b":1,"a":2}').canonical, '{"a":2,"b":1}');
});
