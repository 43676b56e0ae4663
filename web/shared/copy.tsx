/** Copy to the clipboard: a button that says when it worked, and a code block with its own copy button. */
import { useState } from 'preact/hooks';

export function CopyButton(props: { text: string; label: string; class?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = () =>
    navigator.clipboard.writeText(props.text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  return (
    <button type="button" class={props.class ?? 'secondary'} onClick={copy} aria-live="polite">
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed: select the text' : props.label}
    </button>
  );
}

export function CodeBlock(props: { code: string; label: string; testId?: string }) {
  return (
    <div class="code-block">
      <pre tabIndex={0} aria-label={props.label} data-testid={props.testId}>
        <code>{props.code}</code>
      </pre>
      <CopyButton text={props.code} label={`Copy ${props.label.toLowerCase()}`} />
    </div>
  );
}
