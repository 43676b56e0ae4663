/** Route config and schema pieces the `/v1` route files share. */
import { Type } from '@sinclair/typebox';

/** Any principal, checked against the key policy's `gateway` surface. */
export const gatewayRoute = { auth: 'api', surface: 'gateway' } as const;

export const Order = (fallback: 'asc' | 'desc') => Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: fallback });
export const Limit = Type.Integer({ minimum: 1, maximum: 100, default: 20 });
/** `limit`, `after`, `order` of a cursor-paged list (the service's `PageRequest`). */
export const PageQuery = (order: 'asc' | 'desc') => Type.Object({ limit: Limit, after: Type.Optional(Type.String()), order: Order(order) });
