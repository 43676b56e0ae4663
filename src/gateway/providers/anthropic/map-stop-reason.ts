import type { FinishReason } from '../../normalized/index.js';

export function finishFromAnthropic(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'refusal':
      return 'content-filter';
    case 'pause_turn':
      return 'pause';
    default:
      return 'other';
  }
}
