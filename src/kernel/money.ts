/**
 * Money is an integer number of micro-USD (1 USD = 1_000_000). It crosses JSON as `{ micros, usd }`.
 * Every division names its rounding direction.
 */
export type Micros = number;

export const MICROS_PER_USD = 1_000_000;

/** Formats micro-USD as a USD string with 6 decimals, exact (no float arithmetic). */
export function formatUsd(micros: Micros): string {
  const negative = micros < 0;
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_USD);
  const fraction = String(abs % MICROS_PER_USD).padStart(6, '0');
  return `${negative ? '-' : ''}${whole}.${fraction}`;
}

/** An amount as it crosses JSON: micro-USD and the formatted USD string. */
export interface MoneyJson {
  micros: Micros;
  usd: string;
}

export function moneyJson(micros: Micros): MoneyJson {
  return { micros, usd: formatUsd(micros) };
}

/** Cost of `tokens` at `microsPerMillion`, rounded up (the customer never pays less than a started micro-USD). */
export function tokenCostCeil(tokens: number, microsPerMillion: number): Micros {
  if (tokens <= 0 || microsPerMillion <= 0) return 0;
  return Math.ceil((tokens * microsPerMillion) / 1_000_000);
}
