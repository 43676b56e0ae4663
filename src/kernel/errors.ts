/**
 * The one error model. Domain code throws `AppError` with a stable code; `src/http` maps the code to a status
 * (`AppError.status`, from `errorStatus`) and renders it in the caller's protocol. Messages of 5xx errors are never sent to clients.
 */
export const errorStatus = {
  VALIDATION_FAILED: 422,
  BAD_REQUEST: 400,
  UNAUTHENTICATED: 401,
  INSUFFICIENT_CREDIT: 402,
  FORBIDDEN: 403,
  MODEL_NOT_ALLOWED: 403,
  SURFACE_NOT_ALLOWED: 403,
  SPENDING_LIMIT_REACHED: 403,
  VIP_REQUIRED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  GONE: 410,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UPSTREAM_FAILED: 502,
  UPSTREAM_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
  NOT_READY: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface AppErrorOptions {
  /** Extra machine-readable fields sent to the client (never for 5xx). */
  details?: Record<string, unknown>;
  /** Seconds the client should wait; rendered as an integer `Retry-After` header. */
  retryAfterSeconds?: number;
  /** Validation issues, rendered as the FastAPI-style `detail` list. */
  issues?: ValidationIssue[];
  /** Extra response headers (e.g. an upstream's rate-limit headers passed on with a 429). */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  readonly retryAfterSeconds?: number;
  readonly issues?: ValidationIssue[];
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds === undefined ? undefined : Math.max(1, Math.ceil(options.retryAfterSeconds));
    this.issues = options.issues;
    this.headers = options.headers;
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

export function validationError(issues: ValidationIssue[], message = 'Request validation failed'): AppError {
  return new AppError('VALIDATION_FAILED', message, { issues });
}

/** The one 404 for resources that do not exist or belong to someone else (never confirm existence). */
export function notFound(what: string): AppError {
  return new AppError('NOT_FOUND', `${what} not found`);
}
