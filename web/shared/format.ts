/** Display helpers shared by the pages. Money is integer µUSD everywhere in the API. */

export function usd(micros: number | null | undefined, digits = 2): string {
  if (micros === null || micros === undefined) return '—';
  const value = micros / 1_000_000;
  const shown = Math.abs(value) > 0 && Math.abs(value) < 0.01 ? value.toFixed(4) : value.toFixed(digits);
  return `${value < 0 ? '−' : ''}$${shown.replace('-', '')}`;
}

export function number(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : value.toLocaleString('en-US');
}

export function dateTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** Small amounts with four decimals (a call costs fractions of a cent), larger ones with two. */
export function preciseUsd(micros: number | null | undefined): string {
  if (micros === null || micros === undefined) return '—';
  return usd(micros, Math.abs(micros) < 1_000_000 && micros !== 0 ? 4 : 2);
}
