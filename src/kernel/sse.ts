/**
 * Server-sent events encoding, the one recipe for every stream the service writes (the gateway's protocols, desktop
 * chat, feeds and project events): `encodeSseFrame` for any frame, and the fast paths `sseData` / `sseEvent` /
 * `SSE_DONE` for the per-token frames of the model-call protocols, whose data is JSON the caller already encoded.
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

/** Fast path: a `data:` frame of data already encoded as JSON (a single line: JSON.stringify never writes a raw newline). */
export function sseData(json: string): string {
  return `data: ${json}\n\n`;
}

/** Fast path: a named event whose data is already encoded as JSON; the name is checked to be single-line. */
export function sseEvent(event: string, json: string): string {
  return `event: ${singleLine(event, 'event')}\ndata: ${json}\n\n`;
}

/** The end marker of the OpenAI-style streams (chat completions, legacy completions). */
export const SSE_DONE = sseData('[DONE]');

export function encodeSseComment(text: string): string {
  return `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});
