/** Loading state for one `/api` read, and the outcome of one user action. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeDetail, ApiError } from './api';

export interface Loaded<T> {
  data: T | null;
  error: string | null;
  reload: () => Promise<void>;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setData(await load());
      setError(null);
    } catch (caught) {
      setError(errorText(caught));
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller names what the load depends on
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, reload };
}

export function errorText(caught: unknown): string {
  if (caught instanceof ApiError) return describeDetail(caught.detail) || caught.message;
  return caught instanceof Error ? caught.message : String(caught);
}

export interface Outcome {
  kind: 'ok' | 'error';
  text: string;
}

/** Runs one action at a time; its outcome (a success text or the error) is shown next to the control. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const run = async (action: () => Promise<string | void>) => {
    setBusy(true);
    setOutcome(null);
    try {
      const text = await action();
      if (text) setOutcome({ kind: 'ok', text });
    } catch (caught) {
      setOutcome({ kind: 'error', text: errorText(caught) });
    } finally {
      setBusy(false);
    }
  };
  return { busy, outcome, run, setOutcome };
}
