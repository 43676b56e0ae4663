/**
 * Tracing for the whole service (OpenTelemetry, off unless configured): the narrow interface the HTTP layer, the
 * gateway's model calls and the agent's turns call. No `@opentelemetry/sdk-*` type leaves this folder.
 */
export {
  activeSpan,
  installTracing,
  traceHeaders,
  tracer,
  withSpan,
  type Span,
  type TracingHandle,
  type TracingOptions,
} from './tracing.js';
export { endRequestSpan, startRequestSpan } from './http-spans.js';
export { modelCallTrace, type ModelCallTrace } from './model-call.js';
export { tracedApproval, turnContext, turnNotification, turnStartFailed, turnStarting } from './agent-turns.js';
export { startOtlpTracing, type OtlpTracingOptions } from './otlp.js';
