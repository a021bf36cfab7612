/**
 * The facts of this test process, as src/main.ts reads them for a real tally: for tests
 * that need a real pid and a real liveness check (the state lock against a second process).
 */
import type { HostFacts } from '../../src/core/host.js';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This process's pid, a signal-0 liveness check and its Node.js version. */
export const processHost: HostFacts = {
  pid: process.pid,
  isAlive: pidAlive,
  nodeVersion: process.versions.node,
};
