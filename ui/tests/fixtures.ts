// Shared fixtures of the browser tests: the server's address, an API client
// for setting up data (as the administrator, with a bearer token), a check
// that no page of a test reported a CSP violation, axe-core runs, sign-in and
// screenshots written as artefacts (ui/artifacts/screens).
import { test as base, expect, type Page, type APIRequestContext } from '@playwright/test';
import { readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { adminPassword } from './global-setup';

export { expect };
export const admin = { login: 'admin', password: adminPassword };

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** An API client as one user, with a bearer token: set-up and checks only. */
export class Api {
  constructor(readonly request: APIRequestContext, readonly token: string) {}

  static async signIn(request: APIRequestContext, login: string, password: string): Promise<Api> {
    const r = await request.post('/api/v1/auth/login', { data: { login, password } });
    expect(r.status(), await r.text()).toBe(200);
    const body = (await r.json()) as { data: { token: string } };
    return new Api(request, body.data.token);
  }

  private headers(): Record<string, string> {
    return { Authorization: `Bearer ${this.token}` };
  }

  async send<T = unknown>(method: string, path: string, data?: unknown): Promise<T> {
    const r = await this.request.fetch(`/api/v1${path}`, { method, headers: this.headers(), data });
    const text = await r.text();
    expect(r.ok(), `${method} ${path}: ${r.status()} ${text}`).toBe(true);
    return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
  }

  get<T = unknown>(path: string): Promise<T> {
    return this.send<T>('GET', path);
  }
  post<T = unknown>(path: string, data?: unknown): Promise<T> {
    return this.send<T>('POST', path, data ?? {});
  }
  patch<T = unknown>(path: string, data: unknown): Promise<T> {
    return this.send<T>('PATCH', path, data);
  }
  put<T = unknown>(path: string, data: unknown): Promise<T> {
    return this.send<T>('PUT', path, data);
  }
  delete<T = unknown>(path: string): Promise<T> {
    return this.send<T>('DELETE', path);
  }
}

type Fixtures = { adminApi: Api; cspViolations: string[] };

export const test = base.extend<Fixtures>({
  baseURL: async ({}, use) => {
    await use(process.env.CORE_TEST_URL);
  },
  adminApi: async ({ request }, use) => {
    await use(await Api.signIn(request, admin.login, admin.password));
  },
  // Every page of every test reports CSP violations; a test fails on any.
  cspViolations: [
    async ({ context }, use) => {
      const violations: string[] = [];
      await context.exposeBinding('__cspViolation', (_src, text: string) => {
        violations.push(text);
      });
      await context.addInitScript(() => {
        document.addEventListener('securitypolicyviolation', (e) => {
          const report = (window as unknown as { __cspViolation: (t: string) => void }).__cspViolation;
          report(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
        });
      });
      context.on('console', (msg) => {
        if (msg.type() === 'error' && msg.text().includes('Content Security Policy')) violations.push(msg.text());
      });
      await use(violations);
      expect(violations, 'CSP violations').toEqual([]);
    },
    { auto: true },
  ],
});

/** Signs in through the sign-in page. */
export async function signIn(page: Page, login: string, password: string): Promise<void> {
  await page.getByLabel(/^(Login|Логин)$/).fill(login);
  await page.getByLabel(/^(Password|Пароль)$/).fill(password);
  await page.getByRole('button', { name: /^(Sign in|Войти)$/ }).click();
}

/** Runs axe-core on the page; fails on serious or critical violations. */
export async function checkA11y(page: Page, screen: string): Promise<void> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad, `axe on ${screen}`).toEqual([]);
}

const artefacts = join(import.meta.dirname, '..', 'artifacts', 'screens');

/**
 * Screenshots of the current screen at 1400 and 390 px wide, named by screen
 * and language; taken by the SQLite pass (the PostgreSQL pass runs beside it).
 */
export async function screenshots(page: Page, screen: string, lang: string): Promise<void> {
  if (process.env.CORE_TEST_DATABASE_URL) return;
  mkdirSync(artefacts, { recursive: true });
  const size = page.viewportSize() ?? { width: 1400, height: 900 };
  for (const width of [1400, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.screenshot({ path: join(artefacts, `${screen}-${lang}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(size);
}
