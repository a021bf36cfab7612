import { defineConfig } from 'vitest/config';

// Two tiers: `unit` needs nothing but `npm ci`; `e2e` needs real outside programs
// (Prometheus, Alertmanager, Chromium) that .ci/run installs.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: ['test/e2e/**'],
          // Real-time scenarios (a baseline, several poll rounds, fixed room for
          // duplicates) take 10–15 s on an idle machine; each wait inside has its own bound.
          testTimeout: 60_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
