import { defineConfig } from '@playwright/test';

// Browser tests of the console against the real binary (tests/global-setup.ts
// starts it), in Debian's Chromium: Playwright's own browser download is not
// used. One worker per pass: scripts/ui-test runs the SQLite and PostgreSQL
// passes side by side on a two-core machine, beside the Go tests; under CI an
// expectation waits up to 15 s and a test up to 90 s (both return as soon
// as they can; the suite loads the machine far beyond its two cores).
export default defineConfig({
  testDir: './tests',
  globalSetup: './tests/global-setup.ts',
  timeout: process.env.CI ? 90_000 : 60_000,
  expect: { timeout: process.env.CI ? 15_000 : 5_000 },
  workers: 1,
  retries: 0,
  reporter: [['list']],
  outputDir: './test-results',
  use: {
    baseURL: process.env.CORE_TEST_URL,
    locale: 'en-US',
    viewport: { width: 1400, height: 900 },
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ],
    },
  },
});
