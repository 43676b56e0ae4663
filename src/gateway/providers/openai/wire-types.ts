/** The parts of OpenAI's chat completions and Responses wire formats this provider reads and writes. */

export type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: string } };

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream: boolean;
  stream_options?: { include_usage: true };
  tools?: { type: 'function'; function: { name: string; description?: string; parameters?: unknown; strict?: boolean } }[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  parallel_tool_calls?: boolean;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string[];
  reasoning_effort?: string;
  response_format?:
    | { type: 'json_object' }
    | { type: 'json_schema'; json_schema: { name: string; schema: unknown; strict?: boolean; description?: string } };
  web_search_options?: Record<string, unknown>;
  metadata?: Record<string, string>;
  prompt_cache_key?: string;
  verbosity?: string;
  service_tier?: string;
  logprobs?: boolean;
  top_logprobs?: number;
  user?: string;
  safety_identifier?: string;
}

export interface ChatUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

export interface ChatChunk {
  id?: string;
  choices?: {
    index?: number;
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      tool_calls?: { index?: number; id?: string; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason?: string | null;
  }[];
  usage?: ChatUsage | null;
  error?: { message?: string; type?: string };
}

export interface ChatCompletionBody {
  id?: string;
  choices?: {
    message?: { content?: string | null; reasoning_content?: string | null; tool_calls?: ChatToolCall[] };
    finish_reason?: string | null;
  }[];
  usage?: ChatUsage | null;
}

export interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens_details?: { reasoning_tokens?: number };
}
