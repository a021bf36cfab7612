/**
 * `node:http` as Node's own module object rather than through an ES import. On Node 22
 * and later an ES import of `node:http` reads every export to build the module namespace,
 * and three of them (`WebSocket`, `CloseEvent`, `MessageEvent`) are getters that load
 * Node's bundled undici: some 17 MiB of resident memory on Node 24 for classes tally never
 * uses (docs/performance.md, "On the image's Node"). Types still come from
 * `import type ... from 'node:http'`, which loads nothing. `require` hands out the same
 * object as `process.getBuiltinModule`, without touching `process` (invariant 14).
 */
import { createRequire } from 'node:module';
export const nodeHttp = createRequire(import.meta.url)('node:http') as typeof import('node:http');
