/**
 * Freeform (`custom`) tools such as Codex's `apply_patch` on upstreams that know only JSON function tools: the
 * tool becomes a function with one string parameter `input`, and a call of it is turned back into a custom call
 * whose input is that string.
 */
import type { StreamPart, ToolSpec } from '../../normalized/index.js';

export const CUSTOM_INPUT_SCHEMA = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The complete raw input of the tool, as free text.' } },
  required: ['input'],
  additionalProperties: false,
} as const;

export function customToolDescription(tool: Extract<ToolSpec, { type: 'custom' }>): string {
  const format = tool.format as { definition?: unknown } | undefined;
  const grammar = typeof format?.definition === 'string' ? `\n\nThe input must follow this grammar:\n${format.definition}` : '';
  return `${tool.description ?? ''}${grammar}`;
}

export function customToolNames(tools: ToolSpec[]): Set<string> {
  return new Set(tools.filter((tool) => tool.type === 'custom').map((tool) => tool.name));
}

/**
 * Tracks tool calls by index while a stream is decoded. Function calls pass through; custom calls collect their
 * JSON arguments and emit the unwrapped `input` as one delta when the call ends.
 */
export class ToolCallTracker {
  private readonly customArguments = new Map<number, string>();
  private readonly open = new Set<number>();

  constructor(private readonly customNames: Set<string>) {}

  start(index: number, id: string, name: string): StreamPart {
    this.open.add(index);
    const custom = this.customNames.has(name);
    if (custom) this.customArguments.set(index, '');
    return { type: 'tool-call-start', index, id, name, kind: custom ? 'custom' : 'function' };
  }

  delta(index: number, delta: string): StreamPart | undefined {
    const collected = this.customArguments.get(index);
    if (collected === undefined) return delta === '' ? undefined : { type: 'tool-call-delta', index, delta };
    this.customArguments.set(index, collected + delta);
    return undefined;
  }

  end(index: number): StreamPart[] {
    if (!this.open.delete(index)) return [];
    const collected = this.customArguments.get(index);
    const parts: StreamPart[] = [];
    if (collected !== undefined) {
      this.customArguments.delete(index);
      parts.push({ type: 'tool-call-delta', index, delta: unwrapCustomInput(collected) });
    }
    parts.push({ type: 'tool-call-end', index });
    return parts;
  }

  /** Ends every call still open (upstreams that do not mark the end of each call). */
  endAll(): StreamPart[] {
    return [...this.open].sort((a, b) => a - b).flatMap((index) => this.end(index));
  }
}

export function unwrapCustomInput(argumentsJson: string): string {
  try {
    const parsed = JSON.parse(argumentsJson) as { input?: unknown };
    return typeof parsed.input === 'string' ? parsed.input : argumentsJson;
  } catch {
    return argumentsJson;
  }
}
