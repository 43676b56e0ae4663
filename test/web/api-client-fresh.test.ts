/**
 * `web/shared/api-schema.ts` (the pages' API types) matches the OpenAPI document the service serves today. With
 * SWITCHYARD_WRITE_API_SCHEMA=1 (`npm run generate:api-client`) the file is rewritten instead.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain ESM script without type declarations
import { API_SCHEMA_FILE, WRITE_ENV, apiSchemaSource } from '../../scripts/generate-api-client.mjs';
import { createTestContext, type TestContext } from '../helpers/context.js';

describe('generated API client types', () => {
  let context: TestContext;
  beforeAll(async () => {
    context = await createTestContext();
  });
  afterAll(async () => context.close());

  it('web/shared/api-schema.ts is generated from the current /openapi.json', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json() as { paths: Record<string, unknown> };
    const source = (await apiSchemaSource(document)) as string;
    // The document the pages are typed from has the account routes they call.
    expect(source).toMatch(/['"]\/api\/v1\/me['"]: \{/);
    if (process.env[WRITE_ENV] === '1') fs.writeFileSync(API_SCHEMA_FILE as string, source);
    const committed = fs.existsSync(API_SCHEMA_FILE as string) ? fs.readFileSync(API_SCHEMA_FILE as string, 'utf8') : '';
    expect(committed === source, 'web/shared/api-schema.ts is stale: run npm run generate:api-client').toBe(true);
  });
});
