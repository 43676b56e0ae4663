/** Small accessible building blocks shared by the pages. */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

export function Notice(props: { kind?: 'error' | 'ok' | 'info'; children: ComponentChildren }) {
  const kind = props.kind ?? 'info';
  return (
    <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

interface InputProps {
  label: string;
  value: string;
  onValue: (value: string) => void;
  hint?: string;
  type?: 'text' | 'email' | 'password' | 'number' | 'url' | 'search' | 'tel';
  name?: string;
  autoComplete?: string;
  required?: boolean;
  placeholder?: string;
  inputMode?: 'text' | 'numeric' | 'decimal' | 'email' | 'search' | 'url';
  maxLength?: number;
  disabled?: boolean;
}

/** A labelled input; the label is always programmatically tied to the control. */
export function Field({ label, value, onValue, hint, ...rest }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        onInput={(event) => onValue((event.currentTarget as HTMLInputElement).value)}
        aria-describedby={hint ? `${id}-hint` : undefined}
        {...(rest as Record<string, unknown>)}
      />
      {hint ? (
        <div id={`${id}-hint`} class="muted">
          {hint}
        </div>
      ) : null}
    </div>
  );
}

export function Card(props: { title?: string; children: ComponentChildren }) {
  return (
    <section class="card" aria-label={props.title}>
      {props.title ? <h2>{props.title}</h2> : null}
      {props.children}
    </section>
  );
}

/** A labelled select. */
export function SelectField(props: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  options: { value: string; label: string }[];
  hint?: string;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        onChange={(event) => props.onValue((event.currentTarget as HTMLSelectElement).value)}
        aria-describedby={props.hint ? `${id}-hint` : undefined}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {props.hint ? (
        <div id={`${id}-hint`} class="muted">
          {props.hint}
        </div>
      ) : null}
    </div>
  );
}

/** A labelled checkbox. */
export function Check(props: { label: string; checked: boolean; onChecked: (checked: boolean) => void; disabled?: boolean }) {
  const id = useId();
  return (
    <label for={id}>
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        disabled={props.disabled}
        onChange={(event) => props.onChecked((event.currentTarget as HTMLInputElement).checked)}
      />{' '}
      {props.label}
    </label>
  );
}

/** The outcome of the last action, announced politely. */
export function Outcome(props: { outcome: { kind: 'ok' | 'error'; text: string } | null }) {
  return props.outcome ? <Notice kind={props.outcome.kind}>{props.outcome.text}</Notice> : null;
}

/**
 * "Skip to content": moves the focus to `<main id="main">` without touching the URL, since the pages route on
 * the hash (a plain `href="#main"` would open a view called "main").
 */
export function SkipLink() {
  const skip = (event: MouseEvent) => {
    event.preventDefault();
    document.getElementById('main')?.focus();
  };
  return (
    <a class="skip-link" href="#main" onClick={skip}>
      Skip to content
    </a>
  );
}
