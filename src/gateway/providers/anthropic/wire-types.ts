/** The parts of Anthropic's Messages wire format this provider reads and writes. */

export type AnthropicImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export type AnthropicBlock =
  | { type: 'text'; text: string; cache_control?: Record<string, unknown> }
  | { type: 'image'; source: AnthropicImageSource }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string | AnthropicBlock[]; is_error?: boolean };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export type AnthropicTool =
  { name: string; description?: string; input_schema: unknown } | { type: string; name: string; [option: string]: unknown };

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string | { type: 'text'; text: string; cache_control?: Record<string, unknown> }[];
  stream: boolean;
  tools?: AnthropicTool[];
  tool_choice?: { type: 'auto' | 'any' | 'none' | 'tool'; name?: string; disable_parallel_tool_use?: boolean };
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };
  output_config?: { effort?: string; format?: { type: 'json_schema'; schema: unknown } };
  metadata?: { user_id: string };
}

export interface AnthropicUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  /** The cache writes by lifetime (newer API versions). */
  cache_creation?: { ephemeral_5m_input_tokens?: number | null; ephemeral_1h_input_tokens?: number | null } | null;
}

export interface AnthropicResponseBody {
  id?: string;
  content?: (
    | { type: 'text'; text: string }
    | { type: 'tool_use'; id: string; name: string; input: unknown }
    | { type: 'thinking'; thinking: string }
    | { type: string }
  )[];
  stop_reason?: string | null;
  usage?: AnthropicUsage;
}

export interface AnthropicStreamEvent {
  type: string;
  index?: number;
  message?: AnthropicResponseBody;
  content_block?: { type: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; thinking?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
  error?: { type?: string; message?: string };
}
