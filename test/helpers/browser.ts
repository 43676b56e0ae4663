/**
 * Debian's Chromium driven by playwright-core, for the web front end's end-to-end tests (launched by chromium.ts),
 * and the accessibility check run in a page.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

export { CHROMIUM, openBrowser, type BrowserSession } from './chromium.js';

/** Runs axe-core in the page and returns the violations of impact serious or critical. */
export async function seriousAccessibilityViolations(page: Page): Promise<{ id: string; impact: string; help: string; nodes: number }[]> {
  const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, so the page's CSP (no inline script) stays on and is not weakened.
  await page.evaluate(source);
  const result = (await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (
            context: Document,
            options: object,
          ) => Promise<{ violations: { id: string; impact: string; help: string; nodes: unknown[] }[] }>;
        };
      }
    ).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  })) as { violations: { id: string; impact: string; help: string; nodes: unknown[] }[] };
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, nodes: violation.nodes.length }));
}
