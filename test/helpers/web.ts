/** The built front end for tests that load pages: built when dist/web is missing or older than web/. */
import fs from 'node:fs';
import path from 'node:path';
// @ts-expect-error -- a plain ES module script without type declarations
import { buildWeb, newestWebSource, WEB_OUT_DIR } from '../../scripts/build-web.mjs';

export async function ensureWebBuilt(): Promise<string> {
  const marker = path.join(WEB_OUT_DIR as string, 'dashboard.html');
  const built = fs.existsSync(marker) ? fs.statSync(marker).mtimeMs : 0;
  if (built === 0 || (newestWebSource as () => number)() > built) await (buildWeb as (o: object) => Promise<unknown>)({ quiet: true });
  return WEB_OUT_DIR as string;
}
