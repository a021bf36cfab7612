import type { OrgSnapshot } from '../../src/snapshot/model.js';

/**
 * `snap` as a restart finds it: written as JSON and read back, the way the snapshot store
 * keeps it (session lists come back as arrays of sessions).
 */
export function asStored(snap: OrgSnapshot): OrgSnapshot {
  return JSON.parse(JSON.stringify(snap)) as OrgSnapshot;
}
