// The demo's nightly job itself: adds the label `triaged` to issues 1..COUNT, one REST write
// each, and stops at the first failure (no retry, no sleep). Run only after the preflight said
// ready. Prints {"written":N,"remaining":R} on stdout; exits 1 when a write failed.
// Usage: GITHUB_API_URL=... GITHUB_TOKEN=... GITHUB_REPOSITORY=o/r node label-issues.mjs COUNT
const count = Number(process.argv[2] ?? 200);
const api = process.env.GITHUB_API_URL;
const repo = process.env.GITHUB_REPOSITORY;
let written = 0;
let remaining = null;
for (let issue = 1; issue <= count; issue++) {
  const res = await fetch(`${api}/repos/${repo}/issues/${issue}/labels`, {
    method: 'POST',
    headers: { authorization: `Bearer ${process.env.GITHUB_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ labels: ['triaged'] }),
  });
  await res.arrayBuffer();
  remaining = Number(res.headers.get('x-ratelimit-remaining'));
  if (!res.ok) {
    console.log(JSON.stringify({ written, remaining, failedAt: issue, status: res.status }));
    process.exit(1);
  }
  written += 1;
}
console.log(JSON.stringify({ written, remaining }));
