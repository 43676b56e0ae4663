/**
 * The response contract: the schema of every 2xx answer, by route. Each area of the API has a file of its own here
 * (`customer.ts`, `admin.ts`, …) exporting a `ResponseCatalog`; `index.ts` joins them and hands each schema to the
 * route it names, so `/openapi.json` documents it and the suite checks every answer against it.
 */
import type { TSchema } from '@sinclair/typebox';

/** `METHOD /url` exactly as the route is registered (Fastify's `:param` form) → status code → schema. */
export type ResponseCatalog = Readonly<Record<string, Readonly<Partial<Record<number, TSchema>>>>>;
