import { Type, type Static } from '@sinclair/typebox';

export const MetricsSection = Type.Object(
  {
    listen: Type.Optional(
      Type.String({
        pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}$',
        description:
          'host:port of a separate listener that serves GET /metrics to anyone who can reach it (e.g. 127.0.0.1:9464). When set, the main port does not serve /metrics; when absent, /metrics is served on the main port to operator bearers only.',
      }),
    ),
  },
  { default: {}, additionalProperties: false },
);
export type MetricsConfig = Static<typeof MetricsSection>;
