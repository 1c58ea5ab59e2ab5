// Small helpers shared by the benchmarks.
import { fileURLToPath } from 'node:url';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const repoRoot = join(fileURLToPath(import.meta.url), '..', '..');

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Total size in bytes of the files below `path`. */
export function dirBytes(path) {
  return readdirSync(path).reduce((sum, name) => {
    const full = join(path, name);
    return sum + (statSync(full).isDirectory() ? dirBytes(full) : statSync(full).size);
  }, 0);
}
