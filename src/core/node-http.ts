/**
 * `node:http` as Node's own module object rather than through an ES import. On Node 22
 * and later an ES import of `node:http` reads every export to build the module namespace,
 * and three of them (`WebSocket`, `CloseEvent`, `MessageEvent`) are getters that load
 * Node's bundled undici: some 17 MiB of resident memory on Node 24 for classes tally never
 * uses (docs/performance.md, "On the image's Node"). Types still come from
 * `import type ... from 'node:http'`, which loads nothing.
 */
export const nodeHttp = process.getBuiltinModule('node:http');
