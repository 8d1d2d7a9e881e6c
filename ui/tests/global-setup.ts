// Starts the real binary for the browser tests: CORE_BIN (built by
// scripts/ui-test), a throw-away data folder, SQLite unless
// CORE_TEST_DATABASE_URL names a fresh PostgreSQL database.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const adminPassword = 'Console-admin-1';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const bin = process.env.CORE_BIN;
  if (!bin) throw new Error('CORE_BIN must name the built coreportal binary (scripts/ui-test builds it)');
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'coreportal-ui-'));
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(bin, ['serve'], {
    env: {
      ...process.env,
      CORE_ADDR: `127.0.0.1:${port}`,
      CORE_DATA_DIR: dataDir,
      DATABASE_URL: process.env.CORE_TEST_DATABASE_URL ?? '',
      SEED_ADMIN_PASSWORD: adminPassword,
      // Backups are signed and keep their secrets, so a restore in a test
      // brings the accounts' passwords back (admin.spec.ts).
      CORE_BACKUP_KEY: 'console-tests-backup-key-2026',
      CORE_ACCESS_LOG: 'false',
      // a small upload limit, so library.spec.ts can show a refused upload
      CORE_MAX_UPLOAD_MB: '1',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  server.stderr?.on('data', (b: Buffer) => {
    log = (log + b.toString()).slice(-20_000);
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const r = await fetch(`${url}/ready`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (server.exitCode !== null || Date.now() > deadline) {
      throw new Error(`the service did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  process.env.CORE_TEST_URL = url;
  return async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  };
}
