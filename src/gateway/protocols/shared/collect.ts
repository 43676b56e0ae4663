/** Folds a normalized part stream into one result: what a non-streaming response (or a stored record) needs. */
import type { FinishReason, StreamPart, ToolKind, Usage } from '../../normalized/index.js';
import { mergeUsage, type NativeResponsesEvent, type UpstreamError } from '../../normalized/index.js';

export interface CollectedToolCall {
  id: string;
  kind: ToolKind;
  name: string;
  arguments: string;
}

export interface Collected {
  upstreamId?: string;
  text: string;
  reasoning: string;
  toolCalls: CollectedToolCall[];
  usage?: Usage;
  finish?: FinishReason;
  error?: UpstreamError;
  /** The last native Responses event (native destinations): its `response` is the faithful result. */
  lastNativeEvent?: NativeResponsesEvent;
}

/** Incremental collector: protocols feed it while streaming so the final object is there at the end. */
export class PartCollector {
  readonly result: Collected = { text: '', reasoning: '', toolCalls: [] };

  add(part: StreamPart): void {
    const result = this.result;
    switch (part.type) {
      case 'start':
        result.upstreamId = part.upstreamId;
        break;
      case 'text-delta':
        result.text += part.delta;
        break;
      case 'reasoning-delta':
        result.reasoning += part.delta;
        break;
      case 'tool-call-start':
        result.toolCalls[part.index] = { id: part.id, kind: part.kind, name: part.name, arguments: '' };
        break;
      case 'tool-call-delta': {
        const call = result.toolCalls[part.index];
        if (call) call.arguments += part.delta;
        break;
      }
      case 'usage':
        result.usage = mergeUsage(result.usage, part.usage);
        break;
      case 'finish':
        result.finish = part.reason;
        break;
      case 'error':
        result.error = part.error;
        break;
      case 'native-event':
        if (typeof part.event.type === 'string' && part.event.type.startsWith('response.') && part.event.response)
          result.lastNativeEvent = part.event;
        break;
      default:
        break;
    }
  }
}

export async function collectParts(parts: AsyncIterable<StreamPart>): Promise<Collected> {
  const collector = new PartCollector();
  for await (const part of parts) collector.add(part);
  return collector.result;
}
