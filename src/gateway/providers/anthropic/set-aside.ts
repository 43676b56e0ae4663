/**
 * Settings a translated call toward Anthropic sets aside while converting, so the caller hears of them in
 * `x-switchyard-dropped-fields` instead of losing them silently: Anthropic refuses `temperature` and `top_p` while
 * thinking, a reasoning effort gives no thinking when the output budget is below Anthropic's minimum or when a forced
 * structured-output tool wins. The answer comes from the conversion itself, so it cannot drift from what is sent.
 */
import { nativeStructuredOutput, type Destination, type NormalizedRequest } from '../../normalized/index.js';
import { toAnthropicRequest, type AnthropicConvertOptions } from './convert-request.js';

/** The conversion options a destination gives (the adapter sends with the same). */
export function anthropicConvertOptions(destination: Destination): AnthropicConvertOptions {
  return {
    upstreamModel: destination.model.upstreamModel,
    defaultMaxTokens: destination.model.capabilities.maxOutputTokens,
    nativeStructuredOutput: nativeStructuredOutput(destination),
    adaptiveThinking: destination.model.capabilities.adaptiveThinking,
  };
}

/** The caller's fields (named as the caller's protocol names them) the Anthropic body leaves out. */
export function anthropicSetAside(request: NormalizedRequest, destination: Destination): string[] {
  const body = toAnthropicRequest(request, anthropicConvertOptions(destination));
  const names: string[] = [];
  if (request.temperature !== undefined && body.temperature === undefined) names.push('temperature');
  if (request.topP !== undefined && body.top_p === undefined) names.push('top_p');
  const effort = request.reasoningEffort;
  if (effort !== undefined && effort !== 'none' && body.thinking === undefined)
    names.push(request.source?.protocol === 'responses' ? 'reasoning.effort' : 'reasoning_effort');
  return names;
}
