/**
 * What a trigger works on, and the lookups every trigger shares: they turn a missing
 * channel, session or member into a 404 and a session in the wrong state into a 409.
 */
import type { Engine } from './engine.js';
import { notFound, SimRequestError } from './errors.js';
import type { SimChannel, SimMember, SimOrg, SimSession } from './model.js';

/** The engine and the org a trigger acts on. */
export interface TriggerContext {
  engine: Engine;
  org: SimOrg;
}

/** The named channel, or the org's first one when none is named. */
export function channelOf(o: SimOrg, id: string | undefined): SimChannel {
  if (id === undefined) {
    const first = o.channels[0];
    if (first === undefined) throw notFound(`org ${o.slug} has no channel`);
    return first;
  }
  const ch = o.channelById.get(id);
  if (ch === undefined) throw notFound(`channel ${id} in org ${o.slug}`);
  return ch;
}

/** The named session of the org. */
export function sessionOf(o: SimOrg, id: string): SimSession {
  const s = o.sessionById.get(id);
  if (s === undefined) throw notFound(`session ${id} in org ${o.slug}`);
  return s;
}

/** The named member of the org. */
export function memberOf(o: SimOrg, id: string): SimMember {
  const m = o.memberById.get(id);
  if (m === undefined) throw notFound(`member ${id} in org ${o.slug}`);
  return m;
}

/** A 409: the entity is not in a state the trigger applies to. */
export function conflict(message: string): SimRequestError {
  return new SimRequestError(409, 'conflict', message);
}
