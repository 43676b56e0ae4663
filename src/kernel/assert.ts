/**
 * Invariants asserted where they must hold (TIGER_STYLE): a broken one is a bug in this process, never a client
 * error, so it throws `AssertionError` (rendered as a 500 whose message is not sent) instead of an `AppError`.
 */
export class AssertionError extends Error {
  override readonly name = 'AssertionError';
}

/** Throws `AssertionError` with `message` unless `condition` holds; narrows the type when it does. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

/** An amount of money in micro-USD: a safe integer, not negative. */
export function assertMicros(value: number, name: string): void {
  assert(Number.isSafeInteger(value) && value >= 0, `${name} must be a non-negative integer of micro-USD, got ${value}`);
}

/** The unreachable branch of an exhaustive switch: the type checker proves it, this proves it at run time. */
export function assertNever(value: never, message = 'unexpected value'): never {
  throw new AssertionError(`${message}: ${JSON.stringify(value)}`);
}
