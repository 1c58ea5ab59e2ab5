#!/usr/bin/env python3
"""Writes the receipt conformance vectors: one file per case plus cases.json.

Run from anywhere: python3 tests/vectors/receipts/generate.py. The files are committed; this
script only documents how each was made so a case can be changed in one place.

cases.json lists every file with the expected verdict of the contract (valid, or the error code
and JSON path) and the verdict a JSON Schema validator gives ("schema": "valid"/"invalid").
They differ only for rules a JSON Schema cannot express; "schema_cannot_see" says which.
The exact "message" of each refusal is recorded by the Rust core, after this script:
DEFERRAL_WRITE_VECTORS=1 cargo test -p deferral-core --test receipt_vectors write_messages
"""
import json, os, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
A, B, C, D, E = ("a" * 64, "b" * 64, "c" * 64, "d" * 64, "e" * 64)
DAY = 86_400_000
MAX = 2**53 - 1


def base(retained=False):
    own = ({"disposition": "retained", "mode": "durable-host", "wakeup_digest": D, "cancellation_digest": E}
           if retained else
           {"disposition": "handoff", "mode": "governed-handoff", "wakeup_digest": None, "cancellation_digest": None})
    return {
        "schema": 1, "version": "deferred-receipt-v1", "status": "deferred", "reason": "rest-reserve",
        "issued_at_ms": 1_800_000_000_000, "resume_after_ms": 1_800_000_600_000,
        "resume_by_ms": 1_800_003_600_000,
        "bindings": {"scope_digest": A, "request_digest": B, "plan_digest": C},
        "ownership": own, "fresh_approval_required": True,
    }


def dump(doc):
    return json.dumps(doc, separators=(",", ":")).encode()


def edit(path, value, retained=False, delete=False):
    doc = base(retained)
    target = doc
    for key in path[:-1]:
        target = target[key]
    if delete:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return dump(doc)


cases = []


def case(name, data, code=None, path=None, schema=None, lexical=None):
    folder = "valid" if code is None else "invalid"
    rel = f"{folder}/{name}.json"
    with open(os.path.join(HERE, rel), "wb") as f:
        f.write(data)
    entry = {"file": rel, "valid": code is None}
    if code:
        entry.update(code=code, path=path)
    entry["schema"] = schema or ("valid" if code is None else "invalid")
    if lexical:
        entry["schema_cannot_see"] = lexical
    cases.append(entry)


for folder in ("valid", "invalid"):
    shutil.rmtree(os.path.join(HERE, folder), ignore_errors=True)
    os.makedirs(os.path.join(HERE, folder))

# --- valid ---
case("interop-retained", dump(base(retained=True)))  # the upstream implementation's interop vector
case("handoff", dump(base()))
case("handoff-no-plan", edit(["bindings", "plan_digest"], None))
for reason in ("graphql-reserve", "provider-secondary-limit"):
    case(f"reason-{reason}", edit(["reason"], reason))
case("no-fresh-approval", edit(["fresh_approval_required"], False))
d = base(); d["resume_after_ms"] = d["issued_at_ms"]; d["resume_by_ms"] = d["issued_at_ms"]
case("issued-equals-after-equals-by", dump(d))
d = base(); d["resume_by_ms"] = d["issued_at_ms"] + DAY
case("window-exactly-24h", dump(d))
d = base(); d.update(issued_at_ms=MAX - DAY, resume_after_ms=MAX - 10, resume_by_ms=MAX)
case("max-safe-time", dump(d))
d = base(); d.update(issued_at_ms=0, resume_after_ms=0, resume_by_ms=0)
case("zero-times", dump(d))
case("pretty-printed", json.dumps(base(True), indent=2).encode() + b"\n")
case("escaped-key-name", dump(base()).replace(b'"schema"', b'"sch\\u0065ma"'))
rev = dict(reversed(list(base().items())))
case("members-in-any-order", dump(rev))

# --- every code ---
case("not-json", b"deferred", "malformed-json", "$")
case("empty", b"", "malformed-json", "$")
case("trailing-data", dump(base()) + b" {}", "malformed-json", "$")
case("byte-order-mark", b"\xef\xbb\xbf" + dump(base()), "malformed-json", "$")
case("invalid-utf8", dump(base()).replace(b'"rest-reserve"', b'"rest-\xff"'), "malformed-json", "$")
case("trailing-comma", dump(base())[:-1] + b",}", "malformed-json", "$")
big = json.dumps(base(), indent=2).encode()
big = big[:-1] + b" " * (16 * 1024 + 1 - len(big)) + b"}"
case("too-large", big, "too-large", "$", schema="valid", lexical="size over 16 KiB")
case("top-array", b"[]", "not-an-object", "$")
case("bindings-array", edit(["bindings"], []), "not-an-object", "$.bindings")
case("ownership-null", edit(["ownership"], None), "not-an-object", "$.ownership")
case("duplicate-top", dump(base())[:-1] + b',"reason":"rest-reserve"}', "duplicate-field", "$.reason",
     schema="valid", lexical="duplicate member names")
case("duplicate-escaped", dump(base())[:-1] + b',"sch\\u0065ma":1}', "duplicate-field", "$.schema",
     schema="valid", lexical="duplicate member names (one escaped)")
case("duplicate-in-bindings", dump(base()).replace(b'"plan_digest"', b'"scope_digest":"' + A.encode() + b'","plan_digest"'),
     "duplicate-field", "$.bindings.scope_digest", schema="valid", lexical="duplicate member names")
case("unknown-top", edit(["token"], "redacted"), "unknown-field", "$.token")
case("unknown-in-bindings", edit(["bindings", "repo"], "x"), "unknown-field", "$.bindings.repo")
case("unknown-in-ownership", edit(["ownership", "lease"], 1), "unknown-field", "$.ownership.lease")
case("unknown-odd-name", edit(["a b"], 1), "unknown-field", '$["a b"]')
for field in ("schema", "reason", "resume_by_ms", "fresh_approval_required"):
    case(f"missing-{field}", edit([field], None, delete=True), "missing-field", f"$.{field}")
case("missing-plan-digest", edit(["bindings", "plan_digest"], None, delete=True), "missing-field",
     "$.bindings.plan_digest")
case("missing-wakeup-digest", edit(["ownership", "wakeup_digest"], None, delete=True), "missing-field",
     "$.ownership.wakeup_digest")
case("schema-string", edit(["schema"], "1"), "wrong-type", "$.schema")
case("approval-string", edit(["fresh_approval_required"], "true"), "wrong-type", "$.fresh_approval_required")
case("digest-number", edit(["bindings", "scope_digest"], 7), "wrong-type", "$.bindings.scope_digest")
case("time-string", edit(["issued_at_ms"], "1800000000000"), "wrong-type", "$.issued_at_ms")
case("version-null", edit(["version"], None), "wrong-type", "$.version")
case("schema-2", edit(["schema"], 2), "unsupported-version", "$.schema")
case("schema-1.0", dump(base()).replace(b'"schema":1', b'"schema":1.0'), "unsupported-version", "$.schema",
     schema="valid", lexical="1.0 written for the integer 1")
case("version-v2", edit(["version"], "deferred-receipt-v2"), "unsupported-version", "$.version")
case("status-ready", edit(["status"], "ready"), "invalid-status", "$.status")
case("reason-other", edit(["reason"], "search-reserve"), "invalid-reason", "$.reason")
case("time-negative", edit(["issued_at_ms"], -1), "invalid-time", "$.issued_at_ms")
case("time-fraction", edit(["issued_at_ms"], 1.5), "invalid-time", "$.issued_at_ms")
case("time-1.0", dump(base()).replace(b'"issued_at_ms":1800000000000', b'"issued_at_ms":1800000000000.0'),
     "invalid-time", "$.issued_at_ms", schema="valid", lexical="an integer written with a fraction")
case("time-exponent", dump(base()).replace(b'"issued_at_ms":1800000000000', b'"issued_at_ms":18e11'),
     "invalid-time", "$.issued_at_ms", schema="valid", lexical="an integer written with an exponent")
d = base(); d.update(issued_at_ms=0, resume_after_ms=0)
case("time-minus-zero", dump(d).replace(b'"issued_at_ms":0', b'"issued_at_ms":-0'), "invalid-time",
     "$.issued_at_ms", schema="valid", lexical="-0")
d = base(); d.update(issued_at_ms=MAX - DAY, resume_after_ms=MAX - 10, resume_by_ms=MAX + 1)
case("time-above-2^53", dump(d), "invalid-time", "$.resume_by_ms")
case("time-huge", dump(base()).replace(b'"issued_at_ms":1800000000000', b'"issued_at_ms":' + b"9" * 40),
     "invalid-time", "$.issued_at_ms")
d = base(); d["resume_after_ms"] = d["issued_at_ms"] - 1
case("after-before-issued", dump(d), "window-order", "$.resume_after_ms", schema="valid", lexical="a comparison between two fields")
d = base(); d["resume_by_ms"] = d["resume_after_ms"] - 1
case("by-before-after", dump(d), "window-order", "$.resume_by_ms", schema="valid", lexical="a comparison between two fields")
d = base(); d["resume_by_ms"] = d["issued_at_ms"] + DAY + 1
case("window-24h-plus-1ms", dump(d), "window-too-long", "$.resume_by_ms", schema="valid", lexical="a comparison between two fields")
case("digest-uppercase", edit(["bindings", "scope_digest"], "A" * 64), "invalid-digest", "$.bindings.scope_digest")
case("digest-short", edit(["bindings", "request_digest"], "b" * 63), "invalid-digest", "$.bindings.request_digest")
case("digest-long", edit(["bindings", "plan_digest"], "c" * 65), "invalid-digest", "$.bindings.plan_digest")
case("digest-non-hex", edit(["ownership", "wakeup_digest"], "g" * 64, retained=True), "invalid-digest",
     "$.ownership.wakeup_digest")
case("retained-with-nulls", edit(["ownership", "wakeup_digest"], None, retained=True), "invalid-ownership",
     "$.ownership.wakeup_digest")
case("handoff-with-digest", edit(["ownership", "cancellation_digest"], E), "invalid-ownership",
     "$.ownership.cancellation_digest")
case("mode-disagrees", edit(["ownership", "mode"], "governed-handoff", retained=True), "invalid-ownership",
     "$.ownership.mode")
case("disposition-other", edit(["ownership", "disposition"], "leased"), "invalid-ownership",
     "$.ownership.disposition")

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1)
    f.write("\n")
print(f"wrote {len(cases)} cases")
