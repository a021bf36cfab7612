/**
 * Where things live in the state directory (see docs/state.md). Each store component
 * takes its own directory; this is the one place that names them.
 */
import { join } from 'node:path';
import { LOCK_FILE } from './lock.js';

/** Paths inside a state directory. */
export interface StateLayout {
  root: string;
  lock: string;
  snapshots: string;
  events: string;
  outbox: string;
  /** For alert state (JsonStateFile files owned by the alert engine). */
  alerts: string;
}

/** The layout of state directory `root`. */
export function stateLayout(root: string): StateLayout {
  return {
    root,
    lock: join(root, LOCK_FILE),
    snapshots: join(root, 'snapshots'),
    events: join(root, 'events'),
    outbox: join(root, 'outbox'),
    alerts: join(root, 'alerts'),
  };
}
