/** Per-route options every route module declares in `config`. */
import type { SensitiveAction } from '../accounts/credential-rules.js';
import type { Surface } from '../accounts/principal.js';

export interface RouteOptionsConfig {
  /** `public`: no bearer; `api`: any principal; `operator`: operator principals only. Default `api`. */
  auth?: 'public' | 'api' | 'operator';
  /** Surface checked against the key policy (`allowed surfaces`). */
  surface?: Surface;
  /** Accept `x-api-key` as the bearer (Anthropic clients). */
  allowApiKeyHeader?: boolean;
  /** Error shape of a route outside a prefix scope with its own error handler (the /v1 routes until theirs lands). */
  /**
   * Who among authenticated callers may use the route, checked before the handler (http/caller.ts): `customer`
   * (operators: 403 "This route needs a customer key"), `wallet-owner` (operators: 404 "Wallet not found"),
   * `project-owner` (operators: 403 "Projects belong to customers…"). Handlers that read the customer
   * (`customerOf`) need one.
   */
  caller?: CallerRule;
  /**
   * A sensitive action (minting or changing credentials): the caller's kind of credential must be allowed it by
   * the table in accounts/credential-rules.ts, checked after the caller rule (http/caller.ts).
   */
  sensitive?: SensitiveAction;
}

export type CallerRule = 'customer' | 'wallet-owner' | 'project-owner';

declare module 'fastify' {
  // Fastify's route config is extended by declaration merging, which needs an interface.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends RouteOptionsConfig {}
}
