/**
 * A 422 `detail` item (`{loc, msg, type}`) as a sentence a person reads: "Password needs at least 8 characters."
 * rather than the validator's "must NOT have fewer than 8 characters". Unknown kinds keep the server's text.
 */

export interface Issue {
  loc?: (string | number)[];
  msg?: string;
  type?: string;
}

const FIELD_NAMES: Record<string, string> = {
  email: 'Email',
  password: 'Password',
  new_password: 'New password',
  current_password: 'Current password',
  first_name: 'First name',
  surname: 'Surname',
  amount_micros: 'Amount',
  threshold_micros: 'Threshold',
  spending_limit_micros: 'Spending limit',
  pack_id: 'Credit pack',
  code: 'Code',
  name: 'Name',
};

/** The field an issue is about, as a label ("new_password" → "New password"); null for the body as a whole. */
export function fieldLabel(loc: (string | number)[] | undefined): string | null {
  const last = [...(loc ?? [])].reverse().find((part): part is string => typeof part === 'string');
  if (!last || ['body', 'query', 'path', 'header'].includes(last)) return null;
  if (FIELD_NAMES[last]) return FIELD_NAMES[last]!;
  const words = last
    .replace(/_micros$/, '')
    .replace(/[_-]+/g, ' ')
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const firstNumber = (text: string | undefined) => text?.match(/-?\d+(\.\d+)?/)?.[0];

function sentence(issue: Issue, label: string | null): string {
  const n = firstNumber(issue.msg);
  switch (issue.type) {
    case 'missing':
      return 'is required';
    case 'string_too_short':
      return n === '1' ? 'cannot be empty' : `needs at least ${n} characters`;
    case 'string_too_long':
      return `can have at most ${n} characters`;
    case 'string_pattern_mismatch':
      return label === 'Email' || label?.endsWith('email') ? 'is not a valid email address' : 'is not in an accepted format';
    case 'greater_than_equal':
      return `must be at least ${n}`;
    case 'greater_than':
      return `must be more than ${n}`;
    case 'less_than_equal':
      return `must be at most ${n}`;
    case 'less_than':
      return `must be less than ${n}`;
    case 'extra_forbidden':
      return 'is not a field this form sends';
    case 'integer_type':
      return 'must be a whole number';
    case 'number_type':
      return 'must be a number';
    case 'string_type':
      return 'must be text';
    case 'boolean_type':
      return 'must be yes or no';
    case 'enum':
    case 'literal_error':
    case 'union_error':
      return 'is not one of the accepted choices';
    case 'value_error':
      return 'is not valid';
    default:
      return issue.msg ?? 'is not valid';
  }
}

export function humanIssue(issue: Issue): string {
  const label = fieldLabel(issue.loc);
  const text = sentence(issue, label);
  return label ? `${label} ${text}.` : `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}
