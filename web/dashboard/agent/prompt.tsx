/** The prompt box: starts a turn with optional model, effort, approval policy and permission choices. */
import { useId, useState } from 'preact/hooks';
import { api, newIdempotencyKey } from '../../shared/api';
import { Field } from '../../shared/ui';

const EFFORTS = ['', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const APPROVALS: [string, string][] = [
  ['', 'Default (never ask)'],
  ['untrusted', 'Ask for untrusted commands'],
  ['on-request', 'When the agent asks'],
  ['never', 'Never ask'],
];
const PERMISSIONS: [string, string][] = [
  ['', 'Default (full access)'],
  [':workspace', 'Workspace write'],
  [':read-only', 'Read only'],
  [':danger-full-access', 'Full access'],
];

function Select(props: { label: string; value: string; onValue: (value: string) => void; options: [string, string][] }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(event) => props.onValue((event.currentTarget as HTMLSelectElement).value)}>
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function PromptBox({
  base,
  disabled,
  running,
  onError,
}: {
  base: string;
  disabled: boolean;
  running: boolean;
  onError: (message: string | null) => void;
}) {
  const [prompt, setPrompt] = useState('');
  const [model, setModel] = useState('');
  const [effort, setEffort] = useState('');
  const [approvalPolicy, setApprovalPolicy] = useState('');
  const [permissions, setPermissions] = useState('');
  const [sending, setSending] = useState(false);
  const promptId = useId();

  const send = async (event: Event) => {
    event.preventDefault();
    if (!prompt.trim()) return;
    setSending(true);
    onError(null);
    const body: Record<string, string> = { input: prompt };
    if (model.trim()) body.model = model.trim();
    if (effort) body.effort = effort;
    if (approvalPolicy) body.approvalPolicy = approvalPolicy;
    if (permissions) body.permissions = permissions;
    try {
      await api.post(`${base}/turns`, body, { idempotencyKey: newIdempotencyKey() });
      setPrompt('');
    } catch (caught) {
      onError((caught as Error).message);
    } finally {
      setSending(false);
    }
  };

  return (
    <form onSubmit={send}>
      <div class="field">
        <label for={promptId}>Prompt</label>
        <textarea id={promptId} value={prompt} onInput={(event) => setPrompt((event.currentTarget as HTMLTextAreaElement).value)} />
      </div>
      <details>
        <summary>Turn settings</summary>
        <div class="prompt-options">
          <Field label="Model (blank: default)" value={model} onValue={setModel} placeholder="power-ai" />
          <Select
            label="Reasoning effort"
            value={effort}
            onValue={setEffort}
            options={EFFORTS.map((value) => [value, value || 'Default'])}
          />
          <Select label="Approval policy" value={approvalPolicy} onValue={setApprovalPolicy} options={APPROVALS} />
          <Select label="Permissions" value={permissions} onValue={setPermissions} options={PERMISSIONS} />
        </div>
      </details>
      <button type="submit" disabled={disabled || sending || running || !prompt.trim()}>
        {running ? 'A turn is running…' : 'Send'}
      </button>
    </form>
  );
}
