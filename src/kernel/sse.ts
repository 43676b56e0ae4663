/**
 * Server-sent events encoding, the one recipe for every stream the service writes (gateway and project events).
 * Data is JSON-encoded, so it never contains a raw newline; `event` and `id` are checked to be single-line.
 */
export interface SseFrame {
  event?: string;
  id?: string | number;
  data: unknown;
  retryMs?: number;
}

function singleLine(value: string, field: string): string {
  if (/[\r\n]/.test(value)) throw new Error(`SSE ${field} must be a single line`);
  return value;
}

export function encodeSseFrame(frame: SseFrame): string {
  let out = '';
  if (frame.id !== undefined) out += `id: ${singleLine(String(frame.id), 'id')}\n`;
  if (frame.event !== undefined) out += `event: ${singleLine(frame.event, 'event')}\n`;
  if (frame.retryMs !== undefined) out += `retry: ${Math.floor(frame.retryMs)}\n`;
  const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
  for (const line of data.split(/\r?\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

export function encodeSseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});
