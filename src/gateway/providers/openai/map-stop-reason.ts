import type { FinishReason } from '../../normalized/index.js';

export function finishFromChat(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** A Responses `response` object's terminal state; tool calls are recognised from its output items. */
export function finishFromResponse(response: {
  status?: string;
  incomplete_details?: { reason?: string } | null;
  output?: { type?: string }[];
}): FinishReason {
  if (response.status === 'incomplete') return response.incomplete_details?.reason === 'content_filter' ? 'content-filter' : 'length';
  const calledTool = response.output?.some((item) => item.type === 'function_call' || item.type === 'custom_tool_call');
  return calledTool ? 'tool-calls' : 'stop';
}
