import { Type, type Static } from '@sinclair/typebox';

export const ServerSection = Type.Object(
  {
    bodyLimitBytes: Type.Integer({ minimum: 1024, default: 8 * 1024 * 1024, description: 'Largest accepted request body.' }),
    regionCheckCacheMs: Type.Integer({ minimum: 0, default: 15_000, description: 'How long a region health result is reused.' }),
    regionCheckTimeoutMs: Type.Integer({ minimum: 100, default: 2_000 }),
    drainTimeoutMs: Type.Integer({
      minimum: 0,
      default: 30_000,
      description: 'On SIGTERM/SIGINT: how long in-flight requests and streams may take to finish before their connections are closed.',
    }),
  },
  { default: {} },
);
export type ServerConfig = Static<typeof ServerSection>;
