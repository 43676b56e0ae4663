/** Anthropic error bodies: `{type:"error",error:{type,message}}`. */
export function anthropicErrorMessage(body: unknown): string | undefined {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? message : undefined;
}
