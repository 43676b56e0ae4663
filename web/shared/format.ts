/**
 * Display helpers shared by the dashboard and the operator console. Money is integer µUSD everywhere in the API
 * and has one format on every page: `usd()`.
 */

/**
 * Dollars exactly, with cents always shown and no trailing zeros beyond them: `$12.50`, `$0.0064`, `$0.000479`,
 * `−$1,250.00`. A call costs fractions of a cent, so rounding to cents would hide what a call cost.
 */
export function usd(micros: number | null | undefined): string {
  if (micros === null || micros === undefined || !Number.isFinite(micros)) return '—';
  const abs = Math.abs(Math.trunc(micros));
  const whole = Math.floor(abs / 1_000_000);
  const fraction = String(abs % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${micros < 0 ? '−' : ''}$${whole.toLocaleString('en-US')}.${fraction}`;
}

export function number(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : value.toLocaleString('en-US');
}

export function dateTime(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === '') return '—';
  const date = typeof value === 'number' ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** A duration in milliseconds as people read it: `840 ms`, `2.4 s`, `3 min 5 s`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}
