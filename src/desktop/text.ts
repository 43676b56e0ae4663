/** Text hygiene for stored desktop text: NUL cannot be stored in PostgreSQL text, so it becomes U+FFFD. */
export function storableText(value: string): string {
  return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}

export function iso(ms: number | string | null): string | null {
  return ms === null ? null : new Date(Number(ms)).toISOString();
}
