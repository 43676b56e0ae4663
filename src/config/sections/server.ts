import { Type, type Static } from '@sinclair/typebox';

export const ServerSection = Type.Object(
  {
    bodyLimitBytes: Type.Integer({ minimum: 1024, default: 8 * 1024 * 1024, description: 'Largest accepted request body.' }),
    regionCheckCacheMs: Type.Integer({ minimum: 0, default: 15_000, description: 'How long a region health result is reused.' }),
    regionCheckTimeoutMs: Type.Integer({ minimum: 100, default: 2_000 }),
    trustProxy: Type.Union(
      [
        Type.Literal(false),
        Type.Integer({ minimum: 1, maximum: 32, description: 'Trust this many proxy hops in front of the service.' }),
        Type.Array(
          Type.String({
            pattern: '^(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(/[0-9]{1,3})?)$',
            description: 'A proxy address or CIDR range (IPv4 or IPv6), or loopback / linklocal / uniquelocal.',
          }),
          { minItems: 1, maxItems: 64 },
        ),
      ],
      {
        default: false,
        description:
          "Which proxies' X-Forwarded-For names the client (Fastify's trustProxy): false (the socket's address is the client), a hop count, or the proxies' addresses / CIDR ranges. Every feature that looks at the client's address (sign-in throttling, key alerts, promotions, per-address limits) reads the result.",
      },
    ),
    drainTimeoutMs: Type.Integer({
      minimum: 0,
      default: 30_000,
      description: 'On SIGTERM/SIGINT: how long in-flight requests and streams may take to finish before their connections are closed.',
    }),
  },
  { default: {} },
);
export type ServerConfig = Static<typeof ServerSection>;
