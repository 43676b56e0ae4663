/**
 * The prompt box: starts a turn with optional model, effort, approval policy and permission choices. Each
 * "Default" option names what the default is (the project's `turn_defaults`), and a choice stays shown as chosen
 * for every turn sent from the page.
 */
import { useId, useState } from 'preact/hooks';
import { call, client, idempotent, newIdempotencyKey, type Answer, type Body } from '../../shared/api';
import { EFFORT_LABELS, REASONING_EFFORTS } from '../../shared/reasoning-efforts';
import { Field } from '../../shared/ui';

/** The prompt offers minimal and up (the service's list, web/shared/reasoning-efforts.ts). */
const EFFORTS: [string, string][] = REASONING_EFFORTS.filter((effort) => effort !== 'none').map((effort) => [
  effort,
  EFFORT_LABELS[effort],
]);
const APPROVALS: [string, string][] = [
  ['untrusted', 'Ask for untrusted commands'],
  ['on-request', 'When the agent asks'],
  ['never', 'Never ask'],
];
const PERMISSIONS: [string, string][] = [
  [':workspace', 'Workspace write'],
  [':read-only', 'Read only'],
  [':danger-full-access', 'Full access'],
];
/** The thread defaults' sandbox names, as the permission presets above say them. */
const SANDBOXES: Record<string, string> = {
  'workspace-write': 'Workspace write',
  'read-only': 'Read only',
  'danger-full-access': 'Full access',
};

export type TurnDefaults = Answer<'/api/v1/projects/{projectId}'>['turn_defaults'];

function labelOf(options: [string, string][], value: string | undefined): string | undefined {
  return options.find(([candidate]) => candidate === value)?.[1] ?? value;
}

/** The options of a turn setting, led by "Default (<what the default is>)". */
function withDefault(options: [string, string][], current: string | undefined): [string, string][] {
  return [['', current ? `Default (${current.charAt(0).toLowerCase()}${current.slice(1)})` : 'Default'], ...options];
}

function Select(props: { label: string; value: string; onValue: (value: string) => void; options: [string, string][] }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(event) => props.onValue((event.currentTarget as HTMLSelectElement).value)}>
        {props.options.map(([value, label]) => (
          <option key={value} value={value} selected={value === props.value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function PromptBox({
  projectId,
  disabled,
  running,
  onError,
  defaults,
}: {
  defaults: TurnDefaults | null;
  projectId: string;
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
    const body: Body<'/api/v1/projects/{projectId}/turns', 'post'> = { input: prompt };
    if (model.trim()) body.model = model.trim();
    if (effort) body.effort = effort;
    if (approvalPolicy) body.approvalPolicy = approvalPolicy;
    if (permissions) body.permissions = permissions;
    try {
      const key = newIdempotencyKey();
      await call(() =>
        client.POST('/api/v1/projects/{projectId}/turns', { params: { path: { projectId } }, body, headers: idempotent(key) }),
      );
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
          <Field
            label={`Model (blank: ${defaults?.model ?? 'the default'})`}
            value={model}
            onValue={setModel}
            placeholder={defaults?.model ?? 'power-ai'}
          />
          <Select
            label="Reasoning effort"
            value={effort}
            onValue={setEffort}
            options={withDefault(EFFORTS, labelOf(EFFORTS, defaults?.reasoning_effort))}
          />
          <Select
            label="Approval policy"
            value={approvalPolicy}
            onValue={setApprovalPolicy}
            options={withDefault(APPROVALS, labelOf(APPROVALS, defaults?.approval_policy))}
          />
          <Select
            label="Permissions"
            value={permissions}
            onValue={setPermissions}
            options={withDefault(PERMISSIONS, defaults ? (SANDBOXES[defaults.sandbox] ?? defaults.sandbox) : undefined)}
          />
        </div>
      </details>
      <button type="submit" disabled={disabled || sending || running || !prompt.trim()}>
        {running ? 'A turn is running…' : 'Send'}
      </button>
    </form>
  );
}
