/** The state directory: atomic files, snapshots, the event log, the outbox, the lock. */
export {
  ensureDir,
  fsyncDir,
  type JsonRead,
  nodeFs,
  readJsonFile,
  removeTempFiles,
  type StoreFileHandle,
  type StoreFs,
  unlinkDurable,
  writeFileAtomic,
} from './atomic.js';
export { STORE_ERROR_REASONS, StoreError, type StoreErrorReason, type StoreOp } from './errors.js';
export {
  type AppendResult,
  DEFAULT_EVENT_LOG_MAX_AGE_MS,
  DEFAULT_EVENT_LOG_MAX_BYTES,
  EventLog,
  type EventLogOptions,
  type EventLogStats,
  type EventPage,
} from './event-log.js';
export { type EventQuery, InvalidCursorError, MAX_QUERY_LIMIT } from './event-query.js';
export type { LoggedEvent } from './event-segments.js';
export { StoreHealth, type StoreHealthState } from './health.js';
export { JsonStateFile, type JsonStateFileOptions, type LoadedState } from './json-file.js';
export { stateLayout, type StateLayout } from './layout.js';
export {
  acquireStateLock,
  LOCK_FILE,
  type LockHolder,
  type StateLock,
  StateLockedError,
  type StateLockOptions,
} from './lock.js';
export { Outbox, type OutboxEntry, type OutboxOptions, type OutboxPatch } from './outbox.js';
export { safeFileName } from './safe-name.js';
export { setAside } from './set-aside.js';
export {
  SnapshotStore,
  type SnapshotStoreOptions,
  type StoredSnapshot,
  validateSnapshot,
} from './snapshot-store.js';
