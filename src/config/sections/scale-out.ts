import { Type, type Static } from '@sinclair/typebox';

export const ScaleOutSection = Type.Object(
  {
    enabled: Type.Boolean({
      default: false,
      description:
        'Several nodes share one PostgreSQL database (DATABASE_URL) and one Redis (REDIS_URL): each customer’s app-server runs on the node holding its lease, and project and direct-thread requests reaching another node are forwarded there. Needs both URLs; false: one node, no lease work at all.',
    }),
    leaseTtlMs: Type.Integer({
      minimum: 300,
      default: 15_000,
      description: 'Lease lifetime; the holder renews every third of it, another node takes an expired lease over.',
    }),
    nodeId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        pattern: '^[A-Za-z0-9._:-]+$',
        description: 'This node’s id in the lease table (default: host name, process id and a random suffix).',
      }),
    ),
    internalUrl: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description:
          'Base URL other nodes use to reach this node (default: http://<listen address>:<port>, the loopback address for a wildcard listen).',
      }),
    ),
    allowUnauthenticatedStores: Type.Boolean({
      default: false,
      description:
        'At start, scale-out connects to PostgreSQL and Redis with the credentials taken out (PostgreSQL as the configured user and as postgres without a password, Redis without AUTH) and refuses to start when either lets it in. true: start anyway with a warning (development machines with trust authentication only).',
    }),
    forwardTimeoutMs: Type.Integer({
      minimum: 100,
      default: 5_000,
      description: 'Connect and response-header timeout of a forwarded request (streams themselves have no timeout).',
    }),
  },
  { default: {}, additionalProperties: false },
);
export type ScaleOutConfig = Static<typeof ScaleOutSection>;
