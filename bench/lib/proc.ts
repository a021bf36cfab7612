/**
 * Footprint of another process, read from /proc (Linux): resident memory and CPU time,
 * sampled over time.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';

/** One reading of a process. */
export interface ProcSample {
  /** Wall-clock ms. */
  at: number;
  /** VmRSS, bytes. */
  rssBytes: number;
  /** VmHWM (peak RSS so far), bytes. */
  peakRssBytes: number;
  /**
   * RssFile: the part of RSS that is pages of mapped files (the node binary and shared
   * libraries), shared with other processes mapping them and reclaimable; the rest is
   * RssAnon (heaps, stacks, buffers).
   */
  fileRssBytes: number;
  /** utime + stime, seconds. */
  cpuSeconds: number;
}

let ticks: number | undefined;

/** Clock ticks per second of /proc/<pid>/stat times. */
function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

function kib(status: string, field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  return m ? Number(m[1]) * 1024 : 0;
}

/** Reads RSS and CPU time of `pid`; undefined when the process is gone. */
export async function readProc(pid: number): Promise<ProcSample | undefined> {
  try {
    const [status, stat] = await Promise.all([
      readFile(`/proc/${pid}/status`, 'utf8'),
      readFile(`/proc/${pid}/stat`, 'utf8'),
    ]);
    // Fields after the command name (which may contain spaces) start at field 3.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(rest[11]);
    const stime = Number(rest[12]);
    return {
      at: Date.now(),
      rssBytes: kib(status, 'VmRSS'),
      peakRssBytes: kib(status, 'VmHWM'),
      fileRssBytes: kib(status, 'RssFile'),
      cpuSeconds: (utime + stime) / clockTicks(),
    };
  } catch {
    return undefined;
  }
}

/** CPU use between two samples, as a share of one core. */
export function cpuShare(a: ProcSample, b: ProcSample): number {
  const wall = (b.at - a.at) / 1000;
  return wall <= 0 ? 0 : (b.cpuSeconds - a.cpuSeconds) / wall;
}
