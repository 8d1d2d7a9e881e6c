// Cross-site request forgery: a page of another origin (a server of the
// test's own on another loopback port) sends the signed-in user's cookie
// with a form post and with a credentialed fetch; the API refuses both and
// nothing is created.
import { createServer, type Server } from 'node:http';
import { admin, expect, signIn, test } from './fixtures';

function foreignSite(target: string): Promise<{ server: Server; url: string }> {
  const page = `<!doctype html><html><body>
<form id="f" method="post" action="${target}/api/v1/nodes" enctype="text/plain">
<input name='{"title":"Forged form","slug":"forged-form","x":"' value='"}'></form>
<button id="fetch">fetch</button>
<pre id="out"></pre>
<script>
document.getElementById('fetch').onclick = async () => {
  try {
    const r = await fetch('${target}/api/v1/nodes', { method: 'POST', credentials: 'include',
      headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify({ title: 'Forged fetch', slug: 'forged-fetch' }) });
    document.getElementById('out').textContent = 'status ' + r.status;
  } catch (e) { document.getElementById('out').textContent = 'blocked'; }
};
</script></body></html>`;
  return new Promise((resolve) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(page);
    });
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve({ server, url: `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/` });
    });
  });
}

test('a cookie-authenticated write from another origin is refused', async ({ page, adminApi, baseURL }) => {
  await page.goto('/');
  await signIn(page, admin.login, admin.password);
  await expect(page.getByRole('link', { name: 'Core Portal' })).toBeVisible();

  const { server, url } = await foreignSite(baseURL!);
  try {
    await page.goto(url);
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/nodes') && r.request().method() === 'POST');
    await page.locator('#f').evaluate((f: HTMLFormElement) => f.submit());
    const refused = await answer;
    expect([400, 403]).toContain(refused.status());
    await page.waitForURL(/\/api\/v1\/nodes$/);
    await page.goto(url);
    await page.getByRole('button', { name: 'fetch' }).click();
    await expect(page.locator('#out')).toHaveText(/status (400|403)|blocked/);
  } finally {
    server.close();
  }
  const nodes = await adminApi.get<{ title: string }[]>('/nodes');
  expect(nodes.map((n) => n.title)).not.toContain('Forged form');
  expect(nodes.map((n) => n.title)).not.toContain('Forged fetch');
});
