import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/context.js';
import { ensureWebBuilt } from '../helpers/web.js';

let ctx: TestContext;
let webDir: string;

beforeAll(async () => {
  webDir = await ensureWebBuilt();
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

describe('web pages', () => {
  it('serves the dashboard with a strict CSP, never cached, and its hashed assets immutable', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/dashboard.html' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers['cache-control']).toBe('no-cache');
    // No inline script: every script element has a src under /assets/.
    const scripts = [...page.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/src="\/assets\/[A-Za-z0-9_-]+-[A-Z0-9]{8}\.js"/);
      expect(body.trim()).toBe('');
    }
    const script = /src="(\/assets\/[^"]+)"/.exec(page.body)![1]!;
    const asset = await ctx.app.inject({ method: 'GET', url: script });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(String(asset.headers['cache-control'])).toContain('immutable');
    expect(asset.body).toBe(fs.readFileSync(path.join(webDir, script)).toString());
  });

  it('sends / to the dashboard and answers 404 for pages and assets that do not exist', async () => {
    const root = await ctx.app.inject({ method: 'GET', url: '/' });
    expect(root.statusCode).toBe(302);
    expect(root.headers.location).toBe('/dashboard.html');
    for (const url of ['/nothing.html', '/..%2fpackage.json.html', '/assets/missing-ABCDEFGH.js', '/assets/../../package.json']) {
      const response = await ctx.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
    }
  });
});
