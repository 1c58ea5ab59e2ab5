// Loads a Node built-in as its plain CommonJS object. A static `import` of a built-in builds a
// module namespace by reading every export, which runs the built-in's lazy getters: on Node 24
// node:http's `WebSocket` getter loads undici (about 20 ms per run), node:fs's `promises` getter
// loads fs/promises (1-2 ms). process.getBuiltinModule (Node 20.16+) reads nothing; older Node
// falls back to require, which does the same.
import { createRequire } from 'node:module';

export const builtin = process.getBuiltinModule ?? createRequire(import.meta.url);
