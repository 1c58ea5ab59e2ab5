// Upstream's receipt functions on this core: parseDeferredReceiptV1 (text or object) and
// createGovernedHandoffReceipt, upstream's scenarios (test/deferred-receipt.test.ts) written as
// this project's own, the shared vectors through the object and text forms, and each way this
// library is stricter than upstream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  parseDeferredReceiptV1, createGovernedHandoffReceipt, validateReceipt, receiptDigest, INVALID_RECEIPT,
} from 'deferral';
import { repoRoot } from './helpers.mjs';

const hex = (c) => c.repeat(64);
const retained = Object.freeze({
  schema: 1, version: 'deferred-receipt-v1', status: 'deferred', reason: 'graphql-reserve',
  issued_at_ms: 1_800_000_000_000, resume_after_ms: 1_800_000_600_000, resume_by_ms: 1_800_003_600_000,
  bindings: { scope_digest: hex('a'), request_digest: hex('b'), plan_digest: hex('c') },
  ownership: { disposition: 'retained', mode: 'durable-host', wakeup_digest: hex('d'), cancellation_digest: hex('e') },
  fresh_approval_required: true,
});
const HANDOFF = { disposition: 'handoff', mode: 'governed-handoff', wakeup_digest: null, cancellation_digest: null };

/** Expects parseDeferredReceiptV1 to throw upstream's TypeError with the core's code. */
function refused(value, code, path) {
  assert.throws(() => parseDeferredReceiptV1(value), (err) => {
    assert.ok(err instanceof TypeError, String(err));
    assert.equal(err.message, INVALID_RECEIPT);
    assert.equal(err.code, code, err.detail);
    if (path) assert.equal(err.path, path);
    return true;
  });
}

test('accepts a redacted durable-host receipt and a governed handoff, as object or text', () => {
  assert.deepEqual(parseDeferredReceiptV1(retained), retained);
  assert.deepEqual(parseDeferredReceiptV1(JSON.stringify(retained)), retained);
  const handoff = { ...retained, bindings: { ...retained.bindings, plan_digest: null }, ownership: HANDOFF };
  assert.deepEqual(parseDeferredReceiptV1(handoff), handoff);
  assert.notEqual(parseDeferredReceiptV1(retained), retained, 'a fresh object, not the caller\'s');
});

test('rejects unknown fields, raw identifiers and mixed ownership', () => {
  refused({ ...retained, token: 'test-token-not-real' }, 'unknown-field', '$.token');
  refused({ ...retained, ownership: { ...retained.ownership, wakeup_digest: 'raw-job-id' } }, 'invalid-digest');
  refused({ ...retained, ownership: { ...retained.ownership, disposition: 'handoff' } }, 'invalid-ownership');
  refused({ ...retained, token: undefined }, 'wrong-type');
});

test('rejects ambiguous or unbounded windows, malformed bindings and unknown reasons', () => {
  refused({ ...retained, resume_after_ms: retained.issued_at_ms - 1 }, 'window-order');
  refused({ ...retained, resume_by_ms: retained.issued_at_ms + 86_400_001 }, 'window-too-long');
  refused({ ...retained, reason: 'unknown' }, 'invalid-reason');
  refused({ ...retained, bindings: { ...retained.bindings, scope_digest: 'owner/repository' } }, 'invalid-digest', '$.bindings.scope_digest');
  refused(null, 'not-an-object');
  refused(undefined, 'not-an-object');
  refused(42n, 'not-an-object');
});

test('stricter than upstream: duplicate keys, 1.0, the 16 KiB limit', () => {
  const text = JSON.stringify(retained);
  refused(text.replace('"reason":"graphql-reserve"', '"reason":"rest-reserve","reason":"graphql-reserve"'), 'duplicate-field', '$.reason');
  refused(text.replace('"schema":1', '"schema":1.0'), 'unsupported-version', '$.schema');
  refused(text.replace('"issued_at_ms":1800000000000', '"issued_at_ms":1.8e12'), 'invalid-time');
  refused(text + ' '.repeat(16 * 1024), 'too-large');
  refused(`\ufeff${text}`, 'malformed-json');
});

test('createGovernedHandoffReceipt: upstream defaults, and its input checked by the core', () => {
  const receipt = createGovernedHandoffReceipt({ resource: 'rest', issuedAtMs: 1_800_000_000_000, scopeDigest: hex('a'), requestDigest: hex('b'), planDigest: null, freshApprovalRequired: false });
  assert.deepEqual(receipt, {
    schema: 1, version: 'deferred-receipt-v1', status: 'deferred', reason: 'rest-reserve',
    issued_at_ms: 1_800_000_000_000, resume_after_ms: 1_800_000_060_000, resume_by_ms: 1_800_000_900_000,
    bindings: { scope_digest: hex('a'), request_digest: hex('b'), plan_digest: null },
    ownership: HANDOFF, fresh_approval_required: false,
  });
  const base = { resource: 'graphql', issuedAtMs: 1, scopeDigest: hex('a'), requestDigest: hex('b'), planDigest: null, freshApprovalRequired: true };
  assert.equal(createGovernedHandoffReceipt(base).reason, 'graphql-reserve');
  assert.throws(() => createGovernedHandoffReceipt({ ...base, resource: 'search' }), { code: 'invalid-reason' });
  assert.throws(() => createGovernedHandoffReceipt({ ...base, issuedAtMs: 1.5 }), { code: 'invalid-time' });
  assert.throws(() => createGovernedHandoffReceipt({ ...base, resumeAfterMs: 0 }), { code: 'window-order' });
  assert.throws(() => createGovernedHandoffReceipt({ ...base, planDigest: undefined }), { code: 'wrong-type' });
  assert.throws(() => createGovernedHandoffReceipt(), { message: INVALID_RECEIPT });
});

test('validateReceipt takes text, bytes or an object and never throws', () => {
  for (const input of [retained, JSON.stringify(retained), Buffer.from(JSON.stringify(retained))]) {
    assert.deepEqual(validateReceipt(input), { ok: true, receipt: retained });
  }
  assert.equal(validateReceipt({ ...retained, extra: 1 }).error.code, 'unknown-field');
  assert.equal(validateReceipt('{').error.code, 'malformed-json');
  assert.equal(validateReceipt(undefined).error.code, 'not-an-object');
});

test('the shared vectors get one verdict as bytes and, where an object can hold them, as objects', () => {
  const dir = join(repoRoot, 'tests/vectors/receipts');
  const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
  let asObjects = 0;
  for (const c of cases) {
    const bytes = readFileSync(join(dir, c.file));
    const got = validateReceipt(bytes);
    assert.equal(got.ok, c.valid, c.file);
    if (!c.valid) assert.equal(got.error.code, c.code, c.file);
    // Duplicate keys, number forms, size and encoding live in the text alone: an object made
    // by JSON.parse no longer shows them (the vectors a JSON Schema cannot see either).
    if (c.schema_cannot_see || c.code === 'malformed-json') continue;
    const fromObject = validateReceipt(JSON.parse(bytes.toString('utf8')));
    assert.equal(fromObject.ok, c.valid, `${c.file}: ${JSON.stringify(fromObject.error)}`);
    asObjects += 1;
  }
  assert.ok(asObjects > 30, `only ${asObjects} vectors checked as objects`);
});

test('receiptDigest is the SHA-256 of the JCS form, whatever the key order', () => {
  const reordered = Object.fromEntries(Object.entries(retained).reverse());
  assert.match(receiptDigest(retained), /^[0-9a-f]{64}$/);
  assert.equal(receiptDigest(reordered), receiptDigest(retained));
  assert.equal(receiptDigest(JSON.stringify(retained)), receiptDigest(retained));
  assert.throws(() => receiptDigest({ ...retained, reason: 'x' }), { code: 'invalid-reason' });
});
