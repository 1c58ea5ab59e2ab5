// A fresh process as `deferral-host tick` launches it (exec:), reporting through the durable
// port with the package's resumable host. Usage: node resume-via-port.mjs URL TOKEN_FILE OUTCOME RESULT_FILE
// The retained receipt arrives on stdin; for OUTCOME deferred it is handed back as the new one.
// OUTCOME probe first tries a wrong handle and a stale attempt, then completes.
import { readFileSync, writeFileSync } from 'node:fs';
import { createResumableDeferralHost } from 'deferral';

const [url, tokenFile, outcome, resultFile] = process.argv.slice(2);
const receipt = readFileSync(0, 'utf8');
const host = createResumableDeferralHost({ url, token: readFileSync(tokenFile, 'utf8').trim() });
const id = process.env.DEFERRAL_ID;
const wakeupHandle = process.env.DEFERRAL_WAKEUP_HANDLE;
const attempt = Number(process.env.DEFERRAL_ATTEMPT);
const write = (value) => writeFileSync(resultFile, JSON.stringify(value));
const attemptError = (promise) => promise.then(() => null, (err) => ({ status: err.status, code: err.code }));
try {
  const probes = outcome !== 'probe' ? undefined : {
    before: await host.status(id),
    wrongHandle: await attemptError(host.resume(id, { attempt, wakeupHandle: 'f'.repeat(64), outcome: 'complete' })),
    staleAttempt: await attemptError(host.resume(id, { attempt: attempt + 1, wakeupHandle, outcome: 'complete' })),
    after: await host.status(id),
  };
  const claim = await host.claim(id, wakeupHandle);
  const final = outcome === 'probe' ? 'complete' : outcome;
  const result = await host.resume(id, { attempt, wakeupHandle, outcome: final, receipt: final === 'deferred' ? receipt : undefined });
  write({ claim, result, probes });
} catch (err) {
  write({ error: { status: err.status, code: err.code, message: err.message } });
}
