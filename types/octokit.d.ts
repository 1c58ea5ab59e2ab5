// Declarations for `deferral/octokit` (dist/lib/octokit/index.js): the @octokit/core plugin and
// wrapOctokit, which throw DeferredError instead of sleeping or retrying.
import type { DecisionStatus, DeferredReason, DeferredReceiptV1, HandoffOwnership, PoolPort } from './index.js';

export interface DeferralOctokitOptions {
  /** REST quota kept untouched: a count or a percentage of the limit. Default '10%'. */
  restReserve?: number | string;
  /** GraphQL points kept untouched. Default '10%'. */
  graphqlReserve?: number | string;
  /** Added after the reset. Default 60 000. */
  resumeBufferMs?: number;
  /** How long after resume_after_ms the receipt stays valid. Default 6 h. */
  resumeWindowMs?: number;
  /** Deterministic spread of resume times. Default 30 000. */
  jitterMaxMs?: number;
  /** What the work is bound to. Default: the Action's (GITHUB_API_URL, _REPOSITORY, _WORKFLOW_REF, _JOB). */
  scope?: unknown;
  /** Bound in request_digest. Default null. */
  request?: unknown;
  /** A plan document (docs/plan.md), admitted whole before the first request. */
  plan?: Record<string, unknown>;
  /** Copied into receipts. Default true. */
  freshApprovalRequired?: boolean;
  /** A clock in epoch milliseconds. Default Date.now. */
  now?: () => number;
  /** With `pool` (and a `plan`): the durable port that admits the plan, e.g. createServePort(...). */
  port?: PoolPort;
  /** With `port`: the pool whose quota the work shares (1 to 64 of A-Z a-z 0-9 . _ -). */
  pool?: string;
}

/** `octokit.deferral` on a gated instance: the pool's admission of the plan, and giving it back. */
export interface DeferralHandle {
  /** The admission id, or null (no pool, not yet admitted, or released). */
  admission(): string | null;
  /** Gives the admission back with the rate state seen last; null when there is none. */
  release(): Promise<{ released: boolean; already: boolean } | null>;
}

/** Thrown instead of sending a request that would cross the reserve, or on a limit answer. */
export declare class DeferredError extends Error {
  readonly name: 'DeferredError';
  readonly code: 'deferred';
  readonly receipt: DeferredReceiptV1 & { ownership: HandoffOwnership };
  readonly reason: DeferredReason;
  /** ISO 8601, as the Action's resume-after output. */
  readonly resumeAfter: string;
  readonly resumeBy: string;
  readonly resumeAfterMs: number;
  readonly resumeByMs: number;
  /** When a pool refused the plan: the pool and its reason. */
  readonly pool?: string;
  readonly poolReason?: string;
}

/** The work can never fit as planned (`blocked`), or no decision could be made (`error`). */
export declare class DeferralBlockedError extends Error {
  readonly name: 'DeferralBlockedError';
  readonly status: Exclude<DecisionStatus, 'ready' | 'deferred'>;
  readonly code: string;
  readonly diagnostics: { code: string; message: string }[];
}

/** What the plugin needs of an Octokit: its request hook and its request function. */
export interface OctokitLike {
  hook: { wrap(name: 'request', fn: (request: any, options: any) => Promise<any>): void };
  request: (...args: any[]) => Promise<any>;
}

/** Gates an existing instance (e.g. the `github` of actions/github-script); answers it. */
export declare function wrapOctokit<O extends OctokitLike>(octokit: O, options?: DeferralOctokitOptions): O & { readonly deferral: DeferralHandle };

/** The @octokit/core plugin: `Octokit.plugin(deferral)`, options as `{deferral: {...}}`. */
export declare function deferral(octokit: OctokitLike, options: { deferral?: DeferralOctokitOptions; [option: string]: any }): { deferral: DeferralHandle };
