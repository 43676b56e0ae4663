/**
 * The per-request logger Fastify asks for, created only when something is actually logged at an enabled level.
 * A pino child serializes its bindings (the request id) when it is created; most requests log nothing at the
 * configured level, so creating one for each was measurable work on the gateway's hot path.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level, Logger } from 'pino';

type LogFunction = (...args: unknown[]) => void;

export class LazyChildLogger {
  private created: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private get logger(): Logger {
    return (this.created ??= this.parent.child(this.bindings, this.options));
  }

  private log(level: Level, args: unknown[]): void {
    if (this.parent.isLevelEnabled(level)) (this.logger[level] as LogFunction)(...args);
  }

  get level(): string {
    return (this.created ?? this.parent).level;
  }

  set level(value: string) {
    this.logger.level = value;
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.log('error', args);
  }

  warn(...args: unknown[]): void {
    this.log('warn', args);
  }

  info(...args: unknown[]): void {
    this.log('info', args);
  }

  debug(...args: unknown[]): void {
    this.log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.log('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger.child(bindings, options) as FastifyBaseLogger;
  }
}

export function lazyChildLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChildLogger(parent as Logger, bindings, options) as unknown as FastifyBaseLogger;
}
