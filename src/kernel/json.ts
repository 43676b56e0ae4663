/** A parsed JSON object (not an array, not null) and its guard: one definition for every reader of JSON bodies. */
export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
