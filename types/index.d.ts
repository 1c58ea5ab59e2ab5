// Declarations for the package entry `deferral` (dist/lib/index.js). Receipt, decision and
// result shapes follow the contract (docs/receipt.md, docs/decision.md); the tests check them
// against the shared vectors with `tsc --noEmit` (tests/node/types.test.mjs).

/** 64 lowercase hex characters: a SHA-256 digest. */
export type Digest = string;

export type DeferredReason = 'rest-reserve' | 'graphql-reserve' | 'provider-secondary-limit';

export interface ReceiptBindings {
  scope_digest: Digest;
  request_digest: Digest;
  plan_digest: Digest | null;
}

export type RetainedOwnership = { disposition: 'retained'; mode: 'durable-host'; wakeup_digest: Digest; cancellation_digest: Digest };
export type HandoffOwnership = { disposition: 'handoff'; mode: 'governed-handoff'; wakeup_digest: null; cancellation_digest: null };

/** A `deferred-receipt-v1` document. */
export interface DeferredReceiptV1 {
  schema: 1;
  version: 'deferred-receipt-v1';
  status: 'deferred';
  reason: DeferredReason;
  issued_at_ms: number;
  resume_after_ms: number;
  resume_by_ms: number;
  bindings: ReceiptBindings;
  ownership: RetainedOwnership | HandoffOwnership;
  fresh_approval_required: boolean;
}

/** The stable codes of a refused receipt (docs/receipt.md). */
export type ReceiptErrorCode =
  | 'malformed-json' | 'too-large' | 'not-an-object' | 'duplicate-field' | 'unknown-field'
  | 'missing-field' | 'wrong-type' | 'unsupported-version' | 'invalid-status' | 'invalid-reason'
  | 'invalid-time' | 'window-order' | 'window-too-long' | 'invalid-digest' | 'invalid-ownership';

export interface CoreError<Code extends string = string> {
  code: Code;
  path: string;
  message: string;
}

export type ReceiptCheck = { ok: true; receipt: DeferredReceiptV1 } | { ok: false; error: CoreError<ReceiptErrorCode> };

/** A receipt as the functions take it: JSON text, its UTF-8 bytes, or the object. */
export type ReceiptSource = string | Uint8Array | DeferredReceiptV1 | Record<string, unknown>;

export declare const INVALID_RECEIPT: 'invalid deferred receipt';
export declare const INVALID_TRANSITION: 'invalid deferral transition';

/** The TypeError of a refused receipt: upstream's message, the core's verdict as properties. */
export interface InvalidReceiptError extends TypeError {
  message: 'invalid deferred receipt';
  code: ReceiptErrorCode;
  path: string;
  detail: string;
}

/** Validates text, bytes or an object; never throws. */
export declare function validateReceipt(receipt: ReceiptSource | unknown): ReceiptCheck;
/** The receipt, or throws an InvalidReceiptError. */
export declare function parseDeferredReceiptV1(receipt: ReceiptSource | unknown): DeferredReceiptV1;
/** Lowercase hex SHA-256 of the receipt's JCS form. */
export declare function receiptDigest(receipt: ReceiptSource): Digest;

export interface GovernedHandoffInput {
  resource: 'rest' | 'graphql';
  issuedAtMs: number;
  /** Default: issuedAtMs + 60 000. */
  resumeAfterMs?: number;
  /** Default: issuedAtMs + 900 000. */
  resumeByMs?: number;
  scopeDigest: Digest;
  requestDigest: Digest;
  planDigest: Digest | null;
  freshApprovalRequired: boolean;
}
export declare function createGovernedHandoffReceipt(input: GovernedHandoffInput): DeferredReceiptV1 & { ownership: HandoffOwnership };

// ---- the gate decision (docs/decision.md) ----

export interface ResourceWindow { limit: number; remaining: number; reset: number; used?: number }
export interface RateSnapshot { unlimited?: boolean; resources?: Record<string, ResourceWindow> }

export interface DecisionPolicy {
  rest_reserve?: number | string;
  graphql_reserve?: number | string;
  resume_buffer_ms?: number;
  resume_window_ms?: number;
  jitter_max_ms?: number;
}

export interface DecisionInput {
  rate: RateSnapshot;
  ledger?: unknown;
  policy?: DecisionPolicy;
  plan?: unknown;
  scope: unknown;
  request?: unknown;
  fresh_approval_required?: boolean;
  now_ms: number;
  clock_offset_ms?: number | null;
}

export interface ResourceCheck {
  resource: string;
  limit: number;
  remaining: number;
  reserve: number;
  planned_cost: number;
  reset: number;
  ok: boolean;
}

export interface PlanCost {
  rest: number;
  graphql: number;
  secondary_rest_points: number;
  secondary_graphql_points: number;
  content_creating: number;
  secondary_minutes: number;
}

export type DecisionStatus = 'ready' | 'deferred' | 'blocked' | 'error';
export type DecisionCode =
  | 'plan-exceeds-window' | 'window-unreachable'
  | 'invalid-input' | 'invalid-policy' | 'invalid-ledger' | 'invalid-plan' | 'missing-rate-state' | 'receipt-error';

export interface Decision {
  status: DecisionStatus;
  code: DecisionCode | null;
  reason: DeferredReason | null;
  unlimited: boolean;
  rest: ResourceCheck | null;
  graphql: ResourceCheck | null;
  plan: PlanCost | null;
  secondary: { minutes: number; hold_until_ms: number | null };
  clock_offset_ms: number;
  resume_after_ms: number | null;
  resume_by_ms: number | null;
  bindings: ReceiptBindings | null;
  diagnostics: { code: string; message: string }[];
  receipt: (DeferredReceiptV1 & { ownership: HandoffOwnership }) | null;
}

/** The core's gate decision: pure, the same as the Action's and the CLI's. */
export declare function decide(input: DecisionInput): Decision;

// ---- lifecycle ----

export type LifecycleState = 'ready' | 'deferred' | 'resumable' | 'complete' | 'blocked' | 'cancelled';
export type LifecycleEvent = 'record' | 'claim' | 'complete' | 'defer' | 'block' | 'cancel' | 'expire';
export type LifecycleStep =
  | { ok: true; state: LifecycleState; reentries: number; max_reentries: number; cause: string; terminal: boolean }
  | { ok: false; error: CoreError };
export declare function lifecycleTransition(input: { state: LifecycleState; event: LifecycleEvent; reentries?: number; max_reentries?: number }): LifecycleStep;

// ---- the resumable host, upstream's form ----

export type DeferredHostState = 'deferred' | 'resumable' | 'cancelled' | 'expired';

/** A durable port: records wake-ups, says where they stand, cancels them. */
export interface DurableDeferralPort {
  schedule(receipt: DeferredReceiptV1): Promise<{ wakeupDigest: Digest; cancellationDigest: Digest }>;
  state(receipt: DeferredReceiptV1): Promise<DeferredHostState | 'complete' | 'blocked'>;
  cancel(receipt: DeferredReceiptV1): Promise<void>;
}

export interface FreshResumeResult {
  status: 'complete' | 'deferred' | 'blocked';
  receipt?: DeferredReceiptV1;
  /** Set when this library blocks what the fresh process answered (another scope). */
  code?: 'binding-mismatch';
  field?: 'scope_digest';
}

export type FreshProcess = (bindings: ReceiptBindings, freshApprovalRequired: boolean) => Promise<FreshResumeResult>;

/**
 * Every code the library itself throws with (besides a receipt's own codes and
 * `illegal-transition`): the core's list (`driver/src/library/error.rs`), which the tests check
 * this union against.
 */
export type LibraryErrorCode =
  | 'not-retained' | 'already-retained' | 'not-yet-due' | 'expired' | 'invalid-outcome'
  | 'invalid-clock' | 'invalid-now' | 'invalid-fresh-process' | 'invalid-durable-port'
  | 'invalid-launch' | 'missing-receipt' | 'stale-attempt' | 'unexpected-receipt' | 'invalid-port'
  | 'port-unreachable' | 'port-error' | 'invalid-key-store' | 'invalid-key' | 'already-recorded'
  | 'key-store-failed' | 'no-cancellation-handle' | 'invalid-port-answer' | 'invalid-pool'
  | 'invalid-admission-request' | 'invalid-priority' | 'invalid-fairness-key'
  | 'coordinator-failed' | 'admission-spent' | 'admission-released'
  | 'invalid-options' | 'invalid-octokit'
  | 'already-gated' | 'unknown-op';

/** The TypeError of a call not allowed now: upstream's message, with a code. */
export interface InvalidTransitionError extends TypeError {
  message: 'invalid deferral transition';
  code: 'already-retained' | 'not-retained' | 'not-yet-due' | 'expired' | 'invalid-outcome';
  detail: string;
}

export interface ResumableDeferralHost {
  retain(receipt: ReceiptSource | unknown): Promise<DeferredReceiptV1 & { ownership: RetainedOwnership }>;
  cancel(receipt: ReceiptSource | unknown): Promise<void>;
  resume(receipt: ReceiptSource | unknown, freshProcess: FreshProcess): Promise<FreshResumeResult>;
}

// ---- the serve client and its host form ----

export interface PortClientOptions {
  url: string;
  token: string;
  timeoutMs?: number;
  env?: Record<string, string | undefined>;
}

/** A refusal of the port (HTTP status and stable code), or status 0 when refused locally. */
export declare class PortError extends Error {
  constructor(status: number, code: string, message: string, path?: string);
  readonly name: 'PortError';
  status: number;
  code: string;
  path?: string;
}

/** A deferral as `deferral-host status --json ID` prints it. */
export interface DeferralStatus {
  id: string;
  state: LifecycleState;
  cause: string | null;
  reason: DeferredReason | null;
  resume_after_ms: number;
  resume_by_ms: number;
  reentries: number;
  max_reentries: number;
  launch: string;
  fence: number;
  [field: string]: unknown;
}

/**
 * A deferral's place in its pool at the host, kept beside the receipt (never in it). Absent:
 * priority 0 and the launch target's key.
 */
export interface PoolOrder {
  /** A whole number from -(2^53-1) to 2^53-1, default 0: within its pool a higher one is admitted first. */
  priority?: number;
  /** 1 to 200 characters, no control character: among equal priorities the host takes turns between keys. */
  fairnessKey?: string;
}

export interface PortClient {
  url: string;
  record(input: { receipt: ReceiptSource; launch: string; maxReentries?: number } & PoolOrder): Promise<{ id: string; receipt: DeferredReceiptV1; cancellation_handle?: string; already_recorded?: boolean }>;
  get(id: string): Promise<DeferralStatus>;
  getByReceipt(digest: Digest): Promise<DeferralStatus>;
  cancel(id: string, handle: string): Promise<{ id: string; state: LifecycleState; cause: string; already_cancelled?: boolean; message?: string }>;
  retry(id: string, input: { handle: string; launch?: string; maxReentries?: number }): Promise<{ id: string; retry_of: string; state: LifecycleState; launch: string; max_reentries: number; receipt: DeferredReceiptV1 }>;
  claim(id: string, wakeupHandle: string): Promise<{ id: string; state: LifecycleState; attempt: number; receipt: DeferredReceiptV1; [field: string]: unknown }>;
  outcome(id: string, input: { attempt: number; outcome: 'complete' | 'blocked' | 'deferred'; handle: string; receipt?: ReceiptSource }): Promise<{ id: string; state: LifecycleState; cause: string; receipt?: DeferredReceiptV1 }>;
  /** POST /v1/admissions: the port's answer as it came (the serve port's admit checks it). */
  admit(input: AdmissionRequest): Promise<Record<string, unknown>>;
  /** POST /v1/admissions/ID/release, with the rate state seen last if given. */
  release(admission: string, rate?: PoolRate): Promise<Record<string, unknown>>;
}
export declare function createPortClient(options: PortClientOptions): PortClient;

export interface ClientHostOptions extends PoolOrder {
  /** Default launch target of retain: exec:... or workflow-dispatch:OWNER/REPO/WORKFLOW@REF. */
  launch?: string;
  maxReentries?: number;
}

export interface ClientHost {
  retain(receipt: ReceiptSource, options?: ClientHostOptions): Promise<{ id: string; receipt: DeferredReceiptV1; cancellationHandle: string }>;
  status(id: string): Promise<DeferralStatus>;
  cancel(id: string, handle: string): ReturnType<PortClient['cancel']>;
  retry(id: string, handle: string, options?: Pick<ClientHostOptions, 'launch' | 'maxReentries'>): Promise<{ id: string; retryOf: string; receipt: DeferredReceiptV1 }>;
  claim(id: string, wakeupHandle: string): ReturnType<PortClient['claim']>;
  resume(id: string, report: { attempt?: number; wakeupHandle: string; outcome: 'complete' | 'blocked' | 'deferred'; receipt?: ReceiptSource }): ReturnType<PortClient['outcome']>;
}

/** Upstream's form: a durable port and a clock (default Date.now). */
export declare function createResumableDeferralHost(port: DurableDeferralPort, nowMs?: () => number): ResumableDeferralHost;
/** The serve-client form: the options of createPortClient, or a client it made. */
export declare function createResumableDeferralHost(port: PortClientOptions | PortClient, options?: ClientHostOptions): ClientHost;

// ---- the serve-backed durable port ----

export interface KeyStore {
  get(key: Digest): Promise<unknown>;
  set(key: Digest, value: unknown): Promise<void>;
}
export declare function defaultKeyStoreDir(env?: Record<string, string | undefined>): string;
export declare function createFileKeyStore(dir?: string): KeyStore & { dir: string };

export type ServePortOptions = (PortClientOptions | { client: PortClient }) & PoolOrder & {
  launch: string;
  maxReentries?: number;
  keyStore?: KeyStore;
};
/** A durable port with upstream's methods, and a pool's admissions (one admission across runners). */
export interface ServePort extends DurableDeferralPort, PoolPort {
  url: string;
}
export declare function createServePort(options: ServePortOptions): ServePort;

// ---- one admission across runners ----

/** What a plan asks of a pool: REST requests, GraphQL points, content-creating requests (absent: 0). */
export interface PoolCost {
  rest?: number;
  graphql?: number;
  content?: number;
}
/** One resource's window: reset_ms on the caller's clock (GitHub's reset less the clock offset). */
export interface PoolWindow {
  limit: number;
  remaining: number;
  reserve: number;
  reset_ms: number;
}
/** The rate state the caller read, and when (epoch ms). */
export interface PoolRate {
  observed_ms: number;
  rest?: PoolWindow;
  graphql?: PoolWindow;
}
export interface AdmissionRequest {
  /** 1 to 64 of A-Z a-z 0-9 . _ - */
  pool: string;
  cost: PoolCost;
  rate: PoolRate;
}
export type Admission =
  | { admitted: true; admission: string; pool: string; expiresMs: number; window: { rest?: PoolWindow; graphql?: PoolWindow } }
  | { admitted: false; pool: string; reason: string; window: { rest?: PoolWindow; graphql?: PoolWindow } };
/** What admits and releases: createServePort's, or any object with the two methods. */
export interface PoolPort {
  admit(input: AdmissionRequest): Promise<Admission>;
  release(admission: string, rate?: PoolRate): Promise<{ released: boolean; already: boolean }>;
}
