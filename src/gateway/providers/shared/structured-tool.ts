/**
 * Structured output on a destination without a native switch: the request forces one tool whose input schema is
 * the wanted shape, and the tool's arguments come back as the answer's text (message content, `output_text`, a
 * text block), never as a tool call the caller did not define.
 */
import type { StreamPart } from '../../normalized/index.js';

/** The forced tool's name. */
export const STRUCTURED_OUTPUT_TOOL = 'structured_output';

export const STRUCTURED_OUTPUT_DESCRIPTION = "Give the answer as this tool's input, in the required shape.";

/** A structured answer forced through the tool: the tool's arguments become the answer's text, its end a normal stop. */
export async function* structuredAnswer(parts: AsyncIterable<StreamPart>): AsyncGenerator<StreamPart, void, undefined> {
  const forcedCalls = new Set<number>();
  for await (const part of parts) {
    if (part.type === 'tool-call-start' && part.name === STRUCTURED_OUTPUT_TOOL) forcedCalls.add(part.index);
    else if (part.type === 'tool-call-delta' && forcedCalls.has(part.index)) yield { type: 'text-delta', delta: part.delta };
    else if (part.type === 'tool-call-end' && forcedCalls.has(part.index)) continue;
    else if (part.type === 'finish' && part.reason === 'tool-calls' && forcedCalls.size > 0) yield { type: 'finish', reason: 'stop' };
    else yield part;
  }
}
