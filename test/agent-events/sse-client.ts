/** A real HTTP SSE client for tests: node:http + eventsource-parser, collecting frames and comments. */
import http from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export class SseClient {
  readonly messages: EventSourceMessage[] = [];
  readonly comments: string[] = [];
  ended = false;
  private listeners = new Set<() => void>();

  private constructor(
    readonly response: http.IncomingMessage,
    private readonly request: http.ClientRequest,
  ) {
    const parser = createParser({
      onEvent: (message) => {
        this.messages.push(message);
        this.notify();
      },
      onComment: (comment) => {
        this.comments.push(comment.trim());
        this.notify();
      },
    });
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => parser.feed(chunk));
    response.on('close', () => {
      this.ended = true;
      this.notify();
    });
  }

  static connect(url: string, headers: Record<string, string>): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const request = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) =>
        resolve(new SseClient(response, request)),
      );
      request.on('error', reject);
    });
  }

  /** Frames that carry an id (the project's events). */
  get events(): EventSourceMessage[] {
    return this.messages.filter((message) => message.id !== undefined);
  }

  get lastEventId(): string | undefined {
    return this.events.at(-1)?.id;
  }

  async waitFor(predicate: (client: SseClient) => boolean, timeoutMs = 10_000): Promise<void> {
    if (predicate(this)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`SSE condition not met within ${timeoutMs} ms (${this.messages.length} frames, ended=${this.ended})`));
      }, timeoutMs);
      const check = () => {
        if (!predicate(this)) return;
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve();
      };
      this.listeners.add(check);
    });
  }

  close(): void {
    this.request.destroy();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

export function seqs(messages: EventSourceMessage[]): number[] {
  return messages.filter((message) => message.id !== undefined).map((message) => Number(message.id));
}
