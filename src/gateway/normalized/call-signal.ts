/**
 * What the gateway needs of a call's cancellation signal: whether it fired, why, and an `abort` listener. A real
 * AbortSignal has this shape; routes pass a lighter one (http/call-context.ts) because building an
 * AbortController for every request was a measurable share of a call's cost.
 */
export interface CallSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
