// A consumer of the package, type-checked by `tsc --noEmit` (tests/node/types.test.mjs): every
// export of `deferral` used as its documentation shows, and misuses the declarations must refuse.
import {
  createGovernedHandoffReceipt, createResumableDeferralHost, createServePort, createFileKeyStore,
  createPortClient, decide, defaultKeyStoreDir, lifecycleTransition, parseDeferredReceiptV1,
  PortError, receiptDigest, validateReceipt, INVALID_RECEIPT, INVALID_TRANSITION,
  type DeferredReceiptV1, type DurableDeferralPort, type FreshResumeResult, type FreshProcess, type Decision,
} from 'deferral';

const hex = (c: string): string => c.repeat(64);

const handoff = createGovernedHandoffReceipt({
  resource: 'rest', issuedAtMs: Date.now(), scopeDigest: hex('a'), requestDigest: hex('b'),
  planDigest: null, freshApprovalRequired: true,
});
const nullWakeup: null = handoff.ownership.wakeup_digest;
// @ts-expect-error resource is rest or graphql
createGovernedHandoffReceipt({ resource: 'search', issuedAtMs: 1, scopeDigest: '', requestDigest: '', planDigest: null, freshApprovalRequired: true });

const parsed: DeferredReceiptV1 = parseDeferredReceiptV1('{"schema":1}');
const checked = validateReceipt(parsed);
if (checked.ok) {
  const at: number = checked.receipt.resume_after_ms;
} else {
  const code: 'duplicate-field' | string = checked.error.code;
  // @ts-expect-error an error has no receipt
  checked.receipt;
}
const digest: string = receiptDigest(parsed);
const messages: string[] = [INVALID_RECEIPT, INVALID_TRANSITION];

// Upstream's host over an in-memory port.
let state: 'deferred' | 'resumable' = 'deferred';
const port: DurableDeferralPort = {
  schedule: async () => ({ wakeupDigest: hex('d'), cancellationDigest: hex('e') }),
  state: async () => state,
  cancel: async () => {},
};
const host = createResumableDeferralHost(port, () => Date.now());
async function upstreamFlow(): Promise<FreshResumeResult> {
  const retained = await host.retain(handoff);
  const wakeup: string = retained.ownership.wakeup_digest;
  await host.cancel(retained);
  return host.resume(retained, async (bindings, freshApprovalRequired) => {
    const scope: string = bindings.scope_digest;
    const approval: boolean = freshApprovalRequired;
    if (scope === '') return { status: 'blocked' };
    return approval ? { status: 'deferred', receipt: handoff } : { status: 'complete' };
  });
}

// @ts-expect-error a fresh process answers complete, deferred or blocked
const wrongOutcome: FreshProcess = async () => ({ status: 'done' });

// @ts-expect-error a port needs all three methods
createResumableDeferralHost({ schedule: port.schedule, state: port.state }, () => 0);

// The serve-backed port and the serve-client form.
const servePort = createServePort({ url: 'http://127.0.0.1:8787', token: 'test-token-not-real', launch: 'exec:/bin/true', keyStore: createFileKeyStore(defaultKeyStoreDir()) });
const upstreamOverServe = createResumableDeferralHost(servePort);
const client = createPortClient({ url: 'http://127.0.0.1:8787', token: 'test-token-not-real' });
const clientHost = createResumableDeferralHost({ url: 'http://127.0.0.1:8787', token: 'test-token-not-real' }, { launch: 'exec:/bin/true' });
// A deferral's place in its pool: a priority and a fairness key, beside the receipt.
const labelerPort = createServePort({ url: 'http://127.0.0.1:8787', token: 'test-token-not-real', launch: 'exec:/bin/true', priority: 2, fairnessKey: 'labeler' });
const syncHost = createResumableDeferralHost({ url: 'http://127.0.0.1:8787', token: 'test-token-not-real' }, { launch: 'exec:/bin/true', fairnessKey: 'sync' });
// @ts-expect-error a priority is a number
createServePort({ url: 'http://127.0.0.1:8787', token: 'test-token-not-real', launch: 'exec:/bin/true', priority: '2' });
async function orderFlow(): Promise<void> {
  await syncHost.retain(handoff, { priority: 1 });
  await client.record({ receipt: handoff, launch: 'exec:/bin/true', priority: -1, fairnessKey: 'backfill' });
  await labelerPort.schedule(handoff);
}
async function clientFlow(): Promise<void> {
  const { id, cancellationHandle } = await clientHost.retain(handoff);
  const status = await clientHost.status(id);
  const fence: number = status.fence;
  await clientHost.cancel(id, cancellationHandle);
  await client.getByReceipt(digest);
  try { await upstreamOverServe.cancel(handoff); } catch (err) {
    if (err instanceof PortError) { const code: string = err.code; const http: number = err.status; }
  }
}

// A pool's admissions through the serve port.
async function poolFlow(): Promise<void> {
  const rate = { observed_ms: 1800000000000, rest: { limit: 5000, remaining: 4990, reserve: 500, reset_ms: 1800003600000 } };
  const answer = await servePort.admit({ pool: 'app-42', cost: { rest: 10 }, rate });
  if (answer.admitted) {
    const id: string = answer.admission;
    const { released, already }: { released: boolean; already: boolean } = await servePort.release(id, rate);
  } else {
    const why: string = answer.reason;
    const left: number | undefined = answer.window.rest?.remaining;
  }
  await client.admit({ pool: 'app-42', cost: {}, rate });
  // @ts-expect-error a window's figures are numbers
  await servePort.admit({ pool: 'app-42', cost: {}, rate: { observed_ms: 1, rest: { limit: '5000', remaining: 1, reserve: 0, reset_ms: 1 } } });
}

// The decision and the lifecycle.
const decision: Decision = decide({ rate: { unlimited: false, resources: { core: { limit: 5000, remaining: 10, reset: 1800000000 } } }, scope: { work: 'sync' }, now_ms: 1800000000000 });
if (decision.status === 'deferred' && decision.receipt) {
  const disposition: 'handoff' = decision.receipt.ownership.disposition;
}
// @ts-expect-error now_ms is required
decide({ rate: { unlimited: true, resources: {} }, scope: null });
const step = lifecycleTransition({ state: 'resumable', event: 'complete' });
if (step.ok) { const terminal: boolean = step.terminal; }
// @ts-expect-error not a lifecycle event
lifecycleTransition({ state: 'deferred', event: 'finish' });

export { upstreamFlow, clientFlow, orderFlow, nullWakeup, messages, wrongOutcome };
