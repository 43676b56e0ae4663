/** `/docs` is Swagger UI with its assets served by the service itself; admin routes only for operators. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';

let context: TestContext;
let url: string;
beforeAll(async () => {
  context = await createTestContext();
  url = await context.listen();
});
afterAll(async () => context.close());

function specOf(html: string): { paths: Record<string, unknown> } {
  const match = /spec: (\{.*\}),\n/.exec(html);
  return JSON.parse(match![1]!);
}

describe('/docs', () => {
  it('is Swagger UI whose every script and stylesheet comes from the service, no CDN', async () => {
    const response = await fetch(`${url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const html = await response.text();
    expect(html).toContain('SwaggerUIBundle(');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets).toEqual(
      expect.arrayContaining([
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/assets/swagger-ui-standalone-preset.js',
        '/docs/assets/swagger-ui.css',
      ]),
    );
    for (const asset of assets.filter((link) => link !== '/openapi.json')) {
      expect(asset.startsWith('/docs/assets/'), asset).toBe(true);
      const loaded = await fetch(`${url}${asset}`);
      expect(loaded.status, asset).toBe(200);
      expect((await loaded.arrayBuffer()).byteLength, asset).toBeGreaterThan(100);
    }
    const bundle = await fetch(`${url}/docs/assets/swagger-ui-bundle.js`);
    await bundle.arrayBuffer();
    expect(bundle.headers.get('content-type')).toContain('javascript');
    expect(html).not.toMatch(/(?:src|href)="https?:/);
  });

  it('lists the gateway routes, and admin routes only for an operator', async () => {
    const anonymous = specOf(await (await fetch(`${url}/docs`)).text());
    expect(Object.keys(anonymous.paths)).toEqual(expect.arrayContaining(['/v1/messages', '/v1/embeddings', '/healthz']));
    expect(Object.keys(anonymous.paths).some((path) => path.startsWith('/api/admin'))).toBe(false);
    expect(Object.keys(anonymous.paths).some((path) => path.startsWith('/docs'))).toBe(false);
    const operator = specOf(await (await fetch(`${url}/docs`, { headers: operatorHeaders })).text());
    expect(Object.keys(operator.paths).some((path) => path.startsWith('/api/admin'))).toBe(true);
  });

  it('serves no HTML file from the assets folder', async () => {
    const html = await fetch(`${url}/docs/assets/index.html`);
    await html.arrayBuffer();
    expect(html.status).toBe(404);
  });
});
