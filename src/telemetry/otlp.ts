/** Tracing toward an OTLP/HTTP receiver (collector, Jaeger, Grafana Tempo): the production set-up of `installTracing`. */
import { installTracing, type TracingHandle } from './tracing.js';

export interface OtlpTracingOptions {
  /** Base URL of the receiver; spans are posted to `<endpoint>/v1/traces`. */
  endpoint: string;
  headers: Record<string, string>;
  serviceName: string;
  serviceVersion: string;
  instanceId: string;
  recordContent: boolean;
  sampleRatio: number;
}

export async function startOtlpTracing(options: OtlpTracingOptions): Promise<TracingHandle> {
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, '')}/v1/traces`, headers: { ...options.headers } });
  return installTracing({
    exporter,
    serviceName: options.serviceName,
    serviceVersion: options.serviceVersion,
    instanceId: options.instanceId,
    recordContent: options.recordContent,
    sampleRatio: options.sampleRatio,
  });
}
