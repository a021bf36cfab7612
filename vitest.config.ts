import { defineConfig } from 'vitest/config';

// Three tiers (README, "Tests"):
// - `unit`: pure code and single components against loopback servers; needs nothing but
//   `npm ci` and finishes in about a minute. `npm test` runs it.
// - `integration`: whole-daemon scenarios in real time (crash and restart, fault matrices,
//   state-directory faults, hot reload). `npm run test:integration`.
// - `e2e`: real outside programs (Prometheus, Alertmanager, Chromium) that .ci/run installs.
//   `npm run test:e2e`.
const slow = ['test/integration/**', 'test/resilience/**', 'test/cli/demo.test.ts'];
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
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          setupFiles,
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
