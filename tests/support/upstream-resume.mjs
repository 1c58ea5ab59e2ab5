// A fresh process as `deferral-host tick` launches it (exec:), written the way upstream's callers
// write one: createResumableDeferralHost over the serve-backed port, resume(receipt, fresh).
// Usage: node upstream-resume.mjs URL TOKEN_FILE KEY_DIR RESULT_FILE; the receipt comes on stdin.
import { readFileSync, writeFileSync } from 'node:fs';
import { createResumableDeferralHost, createServePort, createFileKeyStore } from 'deferral';

const [url, tokenFile, keyDir, resultFile] = process.argv.slice(2);
const port = createServePort({ url, token: readFileSync(tokenFile, 'utf8').trim(), launch: 'exec:/bin/true', keyStore: createFileKeyStore(keyDir) });
const host = createResumableDeferralHost(port);
try {
  const seen = [];
  const result = await host.resume(readFileSync(0, 'utf8'), async (bindings, fresh) => {
    seen.push({ bindings, fresh });
    return { status: 'complete' };
  });
  writeFileSync(resultFile, JSON.stringify({ result, seen }));
} catch (err) {
  writeFileSync(resultFile, JSON.stringify({ error: { message: err.message, code: err.code } }));
  process.exitCode = 1;
}
