// What the Octokit plugin throws instead of sleeping or retrying: DeferredError carries a
// governed-handoff receipt (hand it to a durable host, or dispatch the workflow again with it);
// DeferralBlockedError says the work can never fit as planned.

/** The work stopped before crossing the reserve, or on a rate-limit answer. */
export class DeferredError extends Error {
  constructor(receipt, message, code) {
    super(message);
    this.name = 'DeferredError';
    this.code = code;
    this.receipt = receipt;
    this.reason = receipt.reason;
    this.resumeAfterMs = receipt.resume_after_ms;
    this.resumeByMs = receipt.resume_by_ms;
    this.resumeAfter = new Date(receipt.resume_after_ms).toISOString();
    this.resumeBy = new Date(receipt.resume_by_ms).toISOString();
  }
}

/** The decision was `blocked` (a plan that can never fit one window) or `error` (bad options). */
export class DeferralBlockedError extends Error {
  constructor(decision) {
    const first = decision.diagnostics.find((d) => d.code === decision.code) ?? decision.diagnostics[0];
    super(`${decision.status}: ${decision.code}${first ? `: ${first.message}` : ''}`);
    this.name = 'DeferralBlockedError';
    this.status = decision.status;
    this.code = decision.code;
    this.diagnostics = decision.diagnostics;
  }
}
