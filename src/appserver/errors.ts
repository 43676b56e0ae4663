/** Failures of the app-server bridge (kept apart from HTTP errors; the agent domain maps them). */

/** A JSON-RPC error reply from the app-server. */
export class AppServerError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'AppServerError';
  }
}

export class AppServerTimeoutError extends Error {
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`app-server did not answer ${method} within ${timeoutMs} ms`);
    this.name = 'AppServerTimeoutError';
  }
}

/** The process exited (or was stopped) while a request was pending or before the handshake finished. */
export class AppServerExitedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AppServerExitedError';
  }
}
