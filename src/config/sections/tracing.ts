import { Type, type Static } from '@sinclair/typebox';

export const TracingSection = Type.Object(
  {
    endpoint: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description:
          'Base URL of an OTLP/HTTP receiver (an OpenTelemetry Collector, Jaeger or Grafana Tempo, e.g. http://127.0.0.1:4318): traces go to <endpoint>/v1/traces. Absent: OTEL_EXPORTER_OTLP_ENDPOINT; neither: tracing is off.',
      }),
    ),
    headers: Type.Record(Type.String(), Type.String(), {
      default: {},
      description: 'Headers sent with every export (a collector token, e.g. {"authorization": "Bearer ${OTLP_TOKEN}"}).',
    }),
    serviceName: Type.String({ minLength: 1, default: 'switchyard', description: 'The traces’ service.name.' }),
    sampleRatio: Type.Number({
      minimum: 0,
      maximum: 1,
      default: 1,
      description:
        'Share of traces recorded, decided where a trace starts (a client’s sampled traceparent is followed): 1 records every request, 0.1 one in ten.',
    }),
    recordContent: Type.Boolean({
      default: false,
      description:
        'Record prompts and completions on model-call spans (gen_ai.input.messages, gen_ai.output.messages) and agent commands on command spans. Off: spans carry models, token counts, costs and timings only. Keys and secrets are never recorded.',
    }),
  },
  { default: {}, additionalProperties: false },
);
export type TracingConfig = Static<typeof TracingSection>;
