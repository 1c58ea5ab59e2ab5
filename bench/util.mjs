// Small helpers shared by the benchmarks.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const repoRoot = join(fileURLToPath(import.meta.url), '..', '..');

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
