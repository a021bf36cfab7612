/**
 * Writing a JSON response, with the faults that live on the wire: added latency, a body
 * trickled in small chunks, a body that is not JSON, an oversized body. Waits use the
 * injected clock, so tests drive them without sleeping.
 */
import type { ServerResponse } from 'node:http';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { FaultPlan } from './faults.js';

/** Timers in flight, cancelled when the simulator closes. */
export type TimerSet = Set<TimerHandle>;

/** Resolves after `ms` on the clock (at once for 0); the timer is tracked for close. */
export function wait(clock: Clock, timers: TimerSet, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const h = clock.setTimeout(() => {
      timers.delete(h);
      resolve();
    }, ms);
    timers.add(h);
  });
}

function closed(res: ServerResponse): boolean {
  return res.destroyed || res.socket === null || res.socket.destroyed;
}

async function writeOversized(res: ServerResponse, body: Buffer, extra: number): Promise<void> {
  // JSON allows trailing whitespace, so the body stays valid: only its size is the fault.
  res.write(body);
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let left = extra;
  while (left > 0 && !closed(res)) {
    const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
    left -= part.length;
    if (!res.write(part)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  if (!closed(res)) res.end();
}

async function writeSlowly(
  res: ServerResponse,
  body: Buffer,
  slow: { chunkBytes: number; intervalMs: number },
  clock: Clock,
  timers: TimerSet,
): Promise<void> {
  for (let i = 0; i < body.length; i += slow.chunkBytes) {
    if (closed(res)) return;
    if (i > 0) await wait(clock, timers, slow.intervalMs);
    if (closed(res)) return;
    res.write(body.subarray(i, i + slow.chunkBytes));
  }
  res.end();
}

/** Writes `status`, `headers` and the JSON text `json`, applying the plan's wire faults. */
export async function writeJson(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  json: string,
  plan: FaultPlan,
  clock: Clock,
  timers: TimerSet,
): Promise<void> {
  await wait(clock, timers, plan.latencyMs);
  if (closed(res)) return;
  let text = json;
  if (plan.malformed && status < 300) text = json.slice(0, Math.max(1, Math.floor(json.length * 0.6)));
  const body = Buffer.from(text, 'utf8');
  res.statusCode = status;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  if (plan.oversize > 0 && status < 300) {
    await writeOversized(res, body, plan.oversize);
    return;
  }
  res.setHeader('content-length', String(body.length));
  if (plan.slowBody !== null) {
    res.flushHeaders();
    await writeSlowly(res, body, plan.slowBody, clock, timers);
    return;
  }
  res.end(body);
}

/** Resets the connection without an answer (TCP RST where the platform allows it). */
export function resetConnection(res: ServerResponse): void {
  const socket = res.socket;
  if (socket === null) return;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}
