// The pages' API types, generated from the OpenAPI document the service serves (GET /openapi.json, as an
// anonymous caller sees it: no operator routes). `web/shared/api-schema.ts` is written by
// test/web/api-client-fresh.test.ts, which boots the service the way every test does (a throwaway SQLite data
// dir) and asks it for the document; without SWITCHYARD_WRITE_API_SCHEMA=1 that test fails when the committed
// file is stale. `npm run generate:api-client` runs it in write mode.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const API_SCHEMA_FILE = path.join(root, 'web', 'shared', 'api-schema.ts');
export const WRITE_ENV = 'SWITCHYARD_WRITE_API_SCHEMA';

const HEADER = `/**
 * Generated from the service's OpenAPI document (GET /openapi.json) by openapi-typescript. Do not edit by hand:
 * change the route schemas (src/http/contract, the routes' own schemas) and run \`npm run generate:api-client\`.
 * test/web/api-client-fresh.test.ts fails when this file is stale.
 */
`;

/** The TypeScript source of `web/shared/api-schema.ts` for an OpenAPI document. */
export async function apiSchemaSource(document) {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const prettier = await import('prettier');
  const ast = await openapiTS(document, { alphabetize: true });
  const options = (await prettier.resolveConfig(API_SCHEMA_FILE)) ?? {};
  return prettier.format(HEADER + astToString(ast), { ...options, filepath: API_SCHEMA_FILE });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const result = spawnSync(process.execPath, [vitest, 'run', 'test/web/api-client-fresh.test.ts'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, [WRITE_ENV]: '1' },
  });
  process.exit(result.status ?? 1);
}
