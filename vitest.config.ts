import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Three tiers (README, "Tests"):
// - `unit`: pure code and single components against loopback servers, time on the injected
//   clock; needs nothing but `npm ci` and finishes in about a minute. `npm test` runs it.
// - `integration`: whole-daemon scenarios in real time (crash and restart, fault matrices,
//   state-directory faults, hot reload) and `tally` as a child process: the `slow` list.
//   `npm run test:integration`.
// - `e2e`: real outside programs (Prometheus, Alertmanager, Chromium) that .ci/run installs.
//   `npm run test:e2e`.
// Whole tallies in real time and `tally` child processes (tsx start-up, signals, kill -9)
// belong here too, wherever their folder: each takes seconds of waiting, not of checking.
const slow = [
  'test/integration/**',
  'test/resilience/**',
  'test/cli/demo.test.ts',
  // The real App polling the simulator on the system clock.
  'test/app/live-metrics.test.ts',
  'test/app/ready-baseline.test.ts',
  'test/app/reload-orgs.test.ts',
  'test/app/saves.test.ts',
  'test/app/schema-drift.test.ts',
  'test/app/stale-lists.test.ts',
  'test/app/stop.test.ts',
  'test/cli/run.test.ts',
  // The planner against a budget and an upstream on the system clock.
  'test/poll/sweep-bound.test.ts',
  // `tally` (src/main.ts) or a notifier as a child process.
  'test/cli/commands.test.ts',
  'test/cli/last-resort.test.ts',
  'test/cli/lazy-modules.test.ts',
  'test/cli/signals.test.ts',
  'test/notify/crash.test.ts',
];
// A session list held compactly equals the array of its sessions (test/helpers/equality.ts).
const setupFiles = ['test/helpers/equality.ts'];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          setupFiles,
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: ['test/e2e/**', ...slow],
          // Vitest's own default is one worker fewer than the cores: one on two cores, which
          // runs the tier file after file while most files wait on loopback I/O.
          maxWorkers: Math.max(2, availableParallelism() - 1),
          // Projects with their own worker counts run as groups, one after the other, when
          // run together (.ci/run on Node 24, `npm run test:full`): unit, integration, e2e.
          sequence: { groupOrder: 0 },
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          setupFiles,
          include: slow.map((glob) => (glob.endsWith('**') ? `${glob}/*.test.ts` : glob)),
          // Real-time scenarios (a baseline, several poll rounds, fixed room for
          // duplicates) take 10–15 s on an idle machine; each wait inside has its own bound.
          sequence: { groupOrder: 1 },
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          setupFiles,
          include: ['test/e2e/**/*.test.ts'],
          sequence: { groupOrder: 2 },
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
