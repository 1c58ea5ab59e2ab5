// How an attempt's result is shown: the CLI's one JSON line and the Action's outputs. Both read
// the same result object, so they always agree.

const iso = (ms) => (ms == null ? null : new Date(ms).toISOString());

function figures(f) {
  if (!f) return null;
  return { limit: f.limit, remaining: f.remaining, reserve: f.reserve, plannedCost: f.planned_cost, reset: f.reset, ok: f.ok };
}

function planCost(p) {
  if (!p) return null;
  return {
    rest: p.rest,
    graphql: p.graphql,
    secondaryRestPoints: p.secondary_rest_points,
    secondaryGraphqlPoints: p.secondary_graphql_points,
    contentCreating: p.content_creating,
    secondaryMinutes: p.secondary_minutes,
  };
}

/** The CLI's JSON object for a result: figures, codes and digests, never inputs as given. */
export function resultJson(result) {
  const d = result.decision ?? {};
  const receipt = result.receipt;
  const out = {
    status: result.status,
    mode: result.mode,
    code: result.code,
    reason: receipt?.reason ?? result.reason ?? null,
    resumeAfter: iso(receipt?.resume_after_ms ?? d.resume_after_ms),
    resumeBy: iso(receipt?.resume_by_ms ?? d.resume_by_ms),
    freshApprovalRequired: receipt ? receipt.fresh_approval_required : null,
    unlimited: d.unlimited ?? false,
    rest: figures(d.rest),
    graphql: figures(d.graphql),
    plan: planCost(d.plan),
    secondaryMinutes: d.secondary?.minutes ?? 0,
    bindings: d.bindings ?? null,
    diagnostics: result.diagnostics,
  };
  if (result.mode === 'resume') {
    out.ownership = result.ownership ?? null;
    if (result.field) out.field = result.field;
  }
  if (result.status === 'deferred' && receipt) out.deferredReceipt = receipt;
  return out;
}

/** The Action's outputs for a result (strings; empty when not applicable). */
export function actionOutputs(result, receiptPath) {
  const json = resultJson(result);
  const text = (v) => (v === null || v === undefined ? '' : String(v));
  return {
    status: json.status,
    'deferred-receipt': json.deferredReceipt ? JSON.stringify(json.deferredReceipt) : '',
    'receipt-path': receiptPath ?? '',
    reason: text(json.reason),
    'resume-after': text(json.status === 'deferred' ? json.resumeAfter : null),
    'resume-by': text(json.status === 'deferred' ? json.resumeBy : null),
    'fresh-approval-required': text(json.freshApprovalRequired),
    'rest-remaining': text(json.rest?.remaining),
    'graphql-remaining': text(json.graphql?.remaining),
  };
}

/** Outputs for a run that ended in an error before any decision. */
export function errorOutputs() {
  return {
    status: 'error', 'deferred-receipt': '', 'receipt-path': '', reason: '', 'resume-after': '',
    'resume-by': '', 'fresh-approval-required': '', 'rest-remaining': '', 'graphql-remaining': '',
  };
}
