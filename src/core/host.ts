/**
 * What tally knows of the process it runs in. Only `src/main.ts` touches `process`
 * (docs/architecture.md, invariant 14): it reads these facts and hands them down through
 * the command's `CliIO` and the app's deps, so the state lock and `tally_build_info` never
 * read a global.
 */

/** The running process, as the state lock and the build metric need it. */
export interface HostFacts {
  /** This process's pid (written to the state lock). */
  pid: number;
  /** Whether a pid runs on this host (a stale state lock's holder). */
  isAlive(pid: number): boolean;
  /** The running Node.js version (`tally_build_info{node}`). */
  nodeVersion: string;
}

/**
 * The facts of a tally embedded in another program (a test, a bench) that passes none: one
 * fixed pid, so every embedded tally of one program counts as the same process (as they
 * are), and a holder with another pid counts as running. A real process passes its own
 * (src/main.ts).
 */
export const EMBEDDED_HOST: HostFacts = {
  pid: 0,
  isAlive: () => true,
  nodeVersion: 'unknown',
};
