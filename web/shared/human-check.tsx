/**
 * The human check on the pages: the `altcha` widget (its CSP-friendly build, loaded on demand so the first load
 * stays small) fetches a challenge from GET /api/v1/auth/human-check and solves the proof of work in a worker
 * served from /assets; the solved payload is what the forms send as `humanCheck`. `generation` renders a fresh
 * widget (a used payload is never accepted twice).
 */
import 'altcha/altcha.css';
import { useEffect, useRef, useState } from 'preact/hooks';

const WORKER_URL = '/assets/altcha-pbkdf2.js';
let loading: Promise<unknown> | undefined;

function loadWidget(): Promise<unknown> {
  loading ??= import('altcha/external').then(() => {
    const registry = (globalThis as unknown as { $altcha: { algorithms: Map<string, () => Worker> } }).$altcha.algorithms;
    for (const algorithm of ['PBKDF2/SHA-256', 'PBKDF2/SHA-384', 'PBKDF2/SHA-512']) {
      registry.set(algorithm, () => new Worker(WORKER_URL));
    }
  });
  return loading;
}

export function HumanCheckWidget(props: { generation: number; onPayload: (payload: string | null) => void }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let widget: HTMLElement | undefined;
    let cancelled = false;
    props.onPayload(null);
    void loadWidget().then(() => {
      if (cancelled || !host.current) return;
      widget = document.createElement('altcha-widget');
      widget.setAttribute('challenge', '/api/v1/auth/human-check');
      widget.setAttribute('auto', 'onload');
      widget.setAttribute('name', 'humanCheck');
      widget.addEventListener('statechange', (event) => {
        const detail = (event as CustomEvent<{ state: string; payload?: string }>).detail;
        props.onPayload(detail.state === 'verified' && detail.payload ? detail.payload : null);
      });
      host.current.replaceChildren(widget);
    });
    return () => {
      cancelled = true;
      widget?.remove();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a new widget per generation; the other props are read as they are then
  }, [props.generation]);
  return <div ref={host} class="human-check" role="group" aria-label="Human check" data-testid="human-check" />;
}

/** Whether a form shows the check, its solved payload (null until solved) and a way to start a fresh one. */
export function useHumanCheck(always: boolean) {
  const [shown, setShown] = useState(always);
  const [generation, setGeneration] = useState(0);
  const [payload, setPayload] = useState<string | null>(null);
  useEffect(() => {
    if (always) setShown(true);
  }, [always]);
  const fresh = () => {
    setShown(true);
    setPayload(null);
    setGeneration((value) => value + 1);
  };
  const fields = () => (payload ? { humanCheck: payload } : {});
  return { shown, generation, payload, setPayload, fresh, fields };
}
