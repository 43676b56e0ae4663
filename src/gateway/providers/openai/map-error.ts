/** OpenAI error bodies: `{error:{message,type,code}}`. */
export function openaiErrorMessage(body: unknown): string | undefined {
  const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
  return typeof message === 'string' ? message : undefined;
}
