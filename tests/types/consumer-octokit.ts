// A consumer of `deferral/octokit` with the real @octokit/core types, checked by tsc --noEmit.
import { Octokit } from '@octokit/core';
import { deferral, wrapOctokit, DeferredError, DeferralBlockedError, type DeferralOctokitOptions } from 'deferral/octokit';
import { createServePort } from 'deferral';

const Gated = Octokit.plugin(deferral);
const options: DeferralOctokitOptions = { restReserve: '10%', graphqlReserve: 500, scope: { work: 'sync' }, plan: { rest: [{ method: 'GET', route: '/user' }] } };
const gated = new Gated({ auth: 'test-token-not-real', deferral: options });
const existing: Octokit = wrapOctokit(new Octokit(), { scope: 'labels' });

export async function labels(): Promise<string | undefined> {
  try {
    await gated.request('GET /user');
    await existing.graphql('query { viewer { login } }');
  } catch (err) {
    if (err instanceof DeferredError) {
      const when: string = err.resumeAfter;
      const schema: 1 = err.receipt.schema;
      return `${err.reason} ${when} ${schema}`;
    }
    if (err instanceof DeferralBlockedError) return err.code;
    throw err;
  }
  return undefined;
}

// @ts-expect-error a reserve is a count or a percentage string
wrapOctokit(new Octokit(), { restReserve: true });
// @ts-expect-error not an Octokit
wrapOctokit({}, {});

// One admission across runners: a port and a pool, the plan admitted once, released when done.
const port = createServePort({ url: 'http://127.0.0.1:8787', token: 'test-token-not-real', launch: 'exec:/bin/true' });
const pooled = new Gated({ auth: 'test-token-not-real', deferral: { ...options, port, pool: 'app-42' } });
export async function pooledBatch(): Promise<string | null> {
  try {
    await pooled.request('GET /user');
  } catch (err) {
    if (err instanceof DeferredError && err.pool !== undefined) return `${err.pool}: ${err.poolReason}`;
    throw err;
  }
  const admission: string | null = pooled.deferral.admission();
  const released = await pooled.deferral.release();
  return released?.released ? admission : null;
}
const wrappedHandle: string | null = wrapOctokit(new Octokit(), { scope: 'x' }).deferral.admission();
// @ts-expect-error a pool is a name
wrapOctokit(new Octokit(), { port, pool: 42 });
