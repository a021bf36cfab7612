/** The bench's side of a tally child process (see tally-child.ts). */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChildMessage, ChildSample, ParentMessage, SlimEvent } from './protocol.js';

const CHILD = fileURLToPath(new URL('./tally-child.ts', import.meta.url));

/** An event as the bench received it: the event plus the clock time tally handed it over. */
export type Noticed = SlimEvent & { noticedAt: number };

/** A running child and what it reported so far. */
export interface TallyChild {
  readonly pid: number;
  readonly url: string | undefined;
  readonly events: Noticed[];
  sample(): Promise<ChildSample>;
  stop(): Promise<void>;
  /** Stderr lines (log output at warn and above). */
  readonly stderr: string[];
}

/** Starts tally (or the naive poller) in a child on the shared accelerated clock. */
export async function startTallyChild(o: {
  config: string;
  origin: number;
  factor: number;
  mode: 'tally' | 'naive';
  /** Collect garbage before each sample, so heap figures are live data only. */
  gcBeforeSample?: boolean;
}): Promise<TallyChild> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      ...(o.gcBeforeSample ? ['--expose-gc'] : []),
      '--import',
      'tsx',
      CHILD,
      o.config,
      String(o.origin),
      String(o.factor),
      o.mode,
    ],
    { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
  );
  const events: Noticed[] = [];
  const stderr: string[] = [];
  let buf = '';
  child.stderr!.on('data', (c: Buffer) => {
    buf += c.toString();
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    for (const l of lines) if (stderr.length < 2000) stderr.push(l);
  });
  const samples: ((s: ChildSample) => void)[] = [];
  let stopped: (() => void) | undefined;
  let url: string | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (m: ChildMessage) => {
      if (m.type === 'started') {
        url = m.url;
        resolve();
      } else if (m.type === 'events') {
        for (const e of m.events) events.push({ ...e, noticedAt: m.noticedAt });
      } else if (m.type === 'sample') samples.shift()?.(m.sample);
      else if (m.type === 'stopped') stopped?.();
      else if (m.type === 'failed') reject(new Error(`tally child failed: ${m.message}`));
    });
    child.once('exit', (code) =>
      reject(new Error(`tally child exited (${code}): ${stderr.slice(-5).join('\n')}`)),
    );
  });
  await ready;
  const post = (m: ParentMessage) => child.send(m);
  return {
    pid: child.pid!,
    get url() {
      return url;
    },
    events,
    stderr,
    sample: () =>
      new Promise<ChildSample>((resolve) => {
        samples.push(resolve);
        post({ type: 'sample' });
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const done = new Promise<void>((resolve) => {
        stopped = resolve;
      });
      post({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await Promise.race([done, exited]);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(timer);
    },
  };
}
