/**
 * The endpoints tally reads and the words their responses are known to wrap data in.
 */

/** One upstream endpoint, named after the part of the snapshot it fills. */
export type Endpoint = 'org' | 'team' | 'subscription' | 'channels' | 'sessions' | 'session';

/** Every endpoint, in reading order. */
export const ENDPOINTS: readonly Endpoint[] = [
  'org',
  'team',
  'subscription',
  'channels',
  'sessions',
  'session',
];

/** Whether an endpoint answers a list (the others answer one object). */
export const LIST_ENDPOINTS: ReadonlySet<Endpoint> = new Set(['team', 'channels', 'sessions']);

/**
 * Keys named after the resource, tried before the generic envelope keys. Order matters:
 * the first key holding the right kind of value wins.
 */
export const RESOURCE_KEYS: Readonly<Record<Endpoint, readonly string[]>> = {
  org: ['organization', 'org', 'organisation'],
  team: ['members', 'team', 'users', 'memberships'],
  subscription: ['subscription'],
  channels: ['channels'],
  sessions: ['sessions', 'broadcasts'],
  session: ['session', 'broadcast'],
};

/** Generic keys a list is wrapped in, after the resource keys. */
export const LIST_KEYS: readonly string[] = ['data', 'items', 'results', 'records'];
