/** Per-route options every route module declares in `config`. */
import type { Surface } from '../accounts/principal.js';
import type { ErrorFormat } from './error-render.js';

export interface RouteOptionsConfig {
  /** `public`: no bearer; `api`: any principal; `operator`: operator principals only. Default `api`. */
  auth?: 'public' | 'api' | 'operator';
  /** Surface checked against the key policy (`allowed surfaces`). */
  surface?: Surface;
  /** Accept `x-api-key` as the bearer (Anthropic clients). */
  allowApiKeyHeader?: boolean;
  errorFormat?: ErrorFormat;
}

declare module 'fastify' {
  interface FastifyContextConfig extends RouteOptionsConfig {}
}
