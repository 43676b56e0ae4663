/**
 * Route modules are encapsulated plugins typed with their own services: none imports the composition root
 * (`services.ts`), the database layer (`storage/`) or builds a service of its own; `routes/index.ts` picks each
 * module's deps from `Services`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const routes = path.resolve(import.meta.dirname, '../../src/http/routes');

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

describe('route modules', () => {
  const files = routeFiles(routes)
    .map((file) => path.relative(routes, file).split(path.sep).join('/'))
    .filter((file) => file !== 'index.ts');

  it('exist under the URL-shaped folders', () => {
    expect(files).toContain('api/v1/projects/runtime.ts');
    expect(files).toContain('api/threads.ts');
    expect(files).toContain('api/admin/keys.ts');
    expect(files).toContain('v1/responses.ts');
  });

  it('import neither services.ts nor storage/, and construct no service', () => {
    const offences: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(path.join(routes, file), 'utf8');
      if (/from '(\.\.\/)+services\.js'/.test(text)) offences.push(`${file}: imports services.ts`);
      if (/from '(\.\.\/)+storage\/(?!readiness\.js)/.test(text)) offences.push(`${file}: imports storage/ beyond the readiness port`);
      if (/\.db\b/.test(text)) offences.push(`${file}: reads a database handle`);
      const built = text.match(/new [A-Z][A-Za-z]*(Service|Services|Repository|Store|Reports|Keys)\(/g);
      if (built) offences.push(`${file}: constructs ${built.join(', ')}`);
    }
    expect(offences).toEqual([]);
  });
});
