/**
 * Research mode of desktop chat: a multi-step analysis by the conversation's model. A plan call asks for a title
 * and section headings as JSON; then one call per section (at most `maxSections`) writes it. Every call is a
 * billed model call through the gateway's execute path. Sources are retrieved first — from the operator's search
 * API, else by the model's own web search where its destination has it — and handed to each section call; every
 * URL a section cites is then fetched through the SSRF-safe client and marked verified (reachable, and a passage
 * the report quotes from it found in its text) or not, with the reason. The
 * analysis is stored with its reply message and moves `pending → running → completed | failed` by guarded updates;
 * the reply message receives the finished report as text. Runs in the background of the process that accepted
 * it: shutdown aborts the running ones, and a start marks analyses left pending or running by a stopped process
 * as failed.
 */
import type { Logger } from 'pino';
import type { Principal } from '../accounts/principal.js';
import type { ExecuteOptions } from '../gateway/execute.js';
import { collect, type DriverDeps } from '../gateway/protocols/driver.js';
import { collectParts } from '../gateway/protocols/shared/collect.js';
import { AppError, isAppError, notFound } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { iso, storableText } from './text.js';
import type { ResearchSources, SearchResult, SourceCheck } from './research-sources.js';

export interface ResearchSection {
  heading: string;
  text: string;
}

export interface ResearchDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  /** The gateway's model-call driver: each step is one billed call through it. */
  driver: Pick<DriverDeps, 'execute'>;
  maxSections: number;
  maxOutputTokens: number;
  /** Retrieval (the operator's search API) and the check of each cited source. */
  sources: ResearchSources;
  /** Whether a model's destination runs web search itself (used when no search API is configured). */
  webSearch(model: string): boolean;
}

export interface ResearchJob {
  researchId: number;
  messageId: number;
  customerId: number;
  model: string;
  prompt: string;
  principal: Principal;
  requestId: string;
  host?: string;
}

const ACTIVE = ['pending', 'running'];
const MAX_SOURCES = 100;
const MAX_HEADING_CHARS = 200;
const URL_PATTERN = /https?:\/\/[^\s<>()[\]{}"'`]+/g;

/** The URLs a text cites, without trailing punctuation, in order of first appearance. */
export function citedUrls(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(URL_PATTERN)) {
    const url = match[0].replace(/[.,;:!?*_]+$/, '');
    try {
      new URL(url);
    } catch {
      continue;
    }
    if (!found.includes(url)) found.push(url);
  }
  return found;
}

/** The plan in a model's answer: `{title, sections}` as JSON, possibly inside a code fence or prose. */
export function parsePlan(text: string, maxSections: number): { title: string; sections: string[] } | null {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(start, end + 1));
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== 'object') return null;
  const { title, sections } = parsed as { title?: unknown; sections?: unknown };
  if (!Array.isArray(sections)) return null;
  const headings = sections
    .map((section) =>
      typeof section === 'string'
        ? section
        : typeof section === 'object' && section !== null && typeof (section as { heading?: unknown }).heading === 'string'
          ? (section as { heading: string }).heading
          : '',
    )
    .map((heading) => heading.trim().slice(0, MAX_HEADING_CHARS))
    .filter((heading) => heading.length > 0)
    .slice(0, maxSections);
  if (headings.length === 0) return null;
  return { title: typeof title === 'string' && title.trim() ? title.trim().slice(0, MAX_HEADING_CHARS) : 'Research', sections: headings };
}

export type ResearchRow = {
  id: number | string;
  message_id: number | string;
  status: string;
  prompt: string;
  title: string | null;
  sections_json: string;
  sources_json: string;
  error: string | null;
  calls: number | string;
  created_at: number | string;
  completed_at: number | string | null;
};

/** Stored sources: URLs while the analysis runs, their checks once it completed. */
export function storedSources(json: string): { urls: string[]; checks: SourceCheck[] } {
  const entries = JSON.parse(json) as (string | SourceCheck)[];
  return {
    urls: entries.map((entry) => (typeof entry === 'string' ? entry : entry.url)),
    checks: entries.filter((entry): entry is SourceCheck => typeof entry !== 'string'),
  };
}

export function researchJson(row: ResearchRow) {
  const sections = JSON.parse(row.sections_json) as ResearchSection[];
  const sources = storedSources(row.sources_json);
  return {
    status: row.status,
    title: row.title,
    sections: sections.map((section) => section.heading),
    sources: sources.urls,
    source_checks: sources.checks.map((check) => ({ url: check.url, verified: check.verified, reason: check.reason })),
    calls: Number(row.calls),
    error: row.error,
    created_at: iso(row.created_at),
    completed_at: iso(row.completed_at),
  };
}

export class ChatResearch {
  private readonly running = new Map<number, { controller: AbortController; done: Promise<void> }>();

  constructor(private readonly deps: ResearchDeps) {}

  /** Starts a stored `pending` analysis in the background. */
  launch(job: ResearchJob): void {
    const controller = new AbortController();
    const done = this.run(job, controller.signal)
      .catch((error: unknown) => this.deps.logger.error({ err: error, researchId: job.researchId }, 'research run failed'))
      .finally(() => this.running.delete(job.researchId));
    this.running.set(job.researchId, { controller, done });
  }

  /** Analyses left pending or running by a process that stopped are failed (they never resume). */
  async recover(): Promise<number> {
    const now = this.deps.clock.nowMs();
    const result = await this.deps.storage.db
      .updateTable('desktop_chat_research')
      .set({ status: 'failed', error: 'Interrupted by a service restart', updated_at: now })
      .where('status', 'in', ACTIVE)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Aborts the running analyses (their calls settle) and waits until each has recorded its end. */
  async close(): Promise<void> {
    const runs = [...this.running.values()];
    for (const run of runs) run.controller.abort(new Error('service shutting down'));
    await Promise.all(runs.map((run) => run.done));
  }

  /** Resolves when no analysis runs in this process (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((run) => run.done));
  }

  async forMessages(customerId: number, messageIds: number[]): Promise<Map<number, ReturnType<typeof researchJson>>> {
    const found = new Map<number, ReturnType<typeof researchJson>>();
    if (messageIds.length === 0) return found;
    const rows = await this.deps.storage.db
      .selectFrom('desktop_chat_research')
      .selectAll()
      .where('customer_id', '=', customerId)
      .where('message_id', 'in', messageIds)
      .execute();
    for (const row of rows) found.set(Number(row.message_id), researchJson(row));
    return found;
  }

  /** The caller's completed analysis of this message; anything else (not theirs, unknown, unfinished) is a 404. */
  async completed(
    customerId: number,
    messageId: number,
  ): Promise<{
    title: string;
    prompt: string;
    sections: ResearchSection[];
    sources: string[];
    checks: SourceCheck[];
    completedAt: number;
  }> {
    const row = await this.deps.storage.db
      .selectFrom('desktop_chat_research')
      .selectAll()
      .where('message_id', '=', messageId)
      .where('customer_id', '=', customerId)
      .where('status', '=', 'completed')
      .executeTakeFirst();
    if (!row) throw notFound('Completed research');
    return {
      title: row.title ?? 'Research',
      prompt: row.prompt,
      sections: JSON.parse(row.sections_json),
      sources: storedSources(row.sources_json).urls,
      checks: storedSources(row.sources_json).checks,
      completedAt: Number(row.completed_at),
    };
  }

  private async run(job: ResearchJob, signal: AbortSignal): Promise<void> {
    if (!(await this.transition(job.researchId, ['pending'], { status: 'running' }))) return;
    let calls = 0;
    const sources: string[] = [];
    try {
      calls += 1;
      const planText = await this.call(job, signal, calls, {
        system:
          'You plan a research report. Answer with JSON only, no prose: {"title": "<report title>", "sections": ["<section heading>", ...]} ' +
          `with at most ${this.deps.maxSections} section headings.`,
        user: job.prompt,
      });
      const plan = parsePlan(planText, this.deps.maxSections);
      if (!plan) throw new AppError('UPSTREAM_FAILED', 'The model answered no usable plan (JSON with title and sections)');
      // Failed meanwhile (a restart elsewhere) or the conversation deleted: stop spending on it.
      if (!(await this.transition(job.researchId, ['running'], { title: storableText(plan.title), calls }))) return;
      const retrieved = await this.retrieve(job, signal);
      const sections: ResearchSection[] = [];
      for (const heading of plan.sections) {
        calls += 1;
        const text = await this.call(
          job,
          signal,
          calls,
          {
            system:
              `You write one section of the research report "${plan.title}". Write the section "${heading}" only, in plain text, and cite your sources as full URLs; ` +
              `after each URL quote the sentence from that source that supports the claim, in double quotes.${retrieved.context}`,
            user: job.prompt,
          },
          retrieved.modelSearch,
        );
        sections.push({ heading: storableText(heading), text: storableText(text.trim()) });
        for (const url of citedUrls(text)) if (!sources.includes(url) && sources.length < MAX_SOURCES) sources.push(url);
        if (
          !(await this.transition(job.researchId, ['running'], {
            sections_json: JSON.stringify(sections),
            sources_json: JSON.stringify(sources),
            calls,
          }))
        )
          return;
      }
      const checks = await this.deps.sources.check(
        sources,
        sections.map((one) => one.text),
      );
      await this.complete(job, plan.title, sections, checks, calls);
    } catch (error) {
      const message = signal.aborted
        ? 'Interrupted by a service shutdown'
        : isAppError(error) && error.status < 500
          ? error.message
          : isAppError(error) && error.code.startsWith('UPSTREAM')
            ? error.message
            : 'The analysis failed';
      if (!isAppError(error)) this.deps.logger.error({ err: error, researchId: job.researchId }, 'research analysis failed');
      await this.transition(job.researchId, ['pending', 'running'], { status: 'failed', error: message, calls });
    }
  }

  /**
   * Sources for the sections: the operator's search API results (as context), else the model's own web search
   * when its destination has it, else none (the model cites what it knows; the check still runs).
   */
  private async retrieve(job: ResearchJob, signal: AbortSignal): Promise<{ context: string; modelSearch: boolean }> {
    if (!this.deps.sources.searchConfigured) return { context: '', modelSearch: this.deps.webSearch(job.model) };
    let results: SearchResult[] = [];
    try {
      results = await this.deps.sources.search(job.prompt, signal);
    } catch (error) {
      this.deps.logger.warn({ err: error, researchId: job.researchId }, 'research search failed; writing without search results');
    }
    if (results.length === 0) return { context: '', modelSearch: false };
    const listed = results.map((result, index) => `${index + 1}. ${result.title} — ${result.url}\n${result.snippet}`).join('\n');
    return { context: `\n\nSearch results (cite those you use):\n${listed}`, modelSearch: false };
  }

  /** One billed model call (with the destination's web search tool when asked); its text, or an error for a refused or failed call. */
  private async call(
    job: ResearchJob,
    signal: AbortSignal,
    step: number,
    prompt: { system: string; user: string },
    webSearch = false,
  ): Promise<string> {
    const options: ExecuteOptions = {
      principal: job.principal,
      request: {
        model: job.model,
        system: prompt.system,
        messages: [{ role: 'user', content: [{ type: 'text', text: prompt.user }] }],
        tools: webSearch ? [{ type: 'builtin', name: 'web_search', config: { type: 'web_search' } }] : [],
        stream: false,
        maxOutputTokens: this.deps.maxOutputTokens,
      },
      operation: 'chat',
      requestId: `${job.requestId}-research-${step}`,
      signal,
      host: job.host,
    };
    const collected = await collect(this.deps.driver, options, (call) => collectParts(call.parts));
    if (collected.error) throw collected.error.toAppError();
    return collected.text;
  }

  private async complete(
    job: ResearchJob,
    title: string,
    sections: ResearchSection[],
    sources: SourceCheck[],
    calls: number,
  ): Promise<void> {
    const now = this.deps.clock.nowMs();
    const report = [
      title,
      '',
      ...sections.flatMap((section) => [section.heading, '', section.text, '']),
      ...(sources.length
        ? ['Sources', '', ...sources.map((source) => `${source.url} (${source.verified ? 'verified' : `not verified: ${source.reason}`})`)]
        : []),
    ]
      .join('\n')
      .trim();
    await this.deps.storage.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('desktop_chat_research')
        .set({
          status: 'completed',
          sections_json: JSON.stringify(sections),
          sources_json: JSON.stringify(sources),
          calls,
          updated_at: now,
          completed_at: now,
        })
        .where('id', '=', job.researchId)
        .where('status', '=', 'running')
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) !== 1) return;
      await trx
        .updateTable('desktop_chat_messages')
        .set({ content: storableText(report) })
        .where('id', '=', job.messageId)
        .execute();
    });
  }

  private async transition(
    researchId: number,
    from: string[],
    set: { status?: string; title?: string; sections_json?: string; sources_json?: string; error?: string; calls?: number },
  ): Promise<boolean> {
    const result = await this.deps.storage.db
      .updateTable('desktop_chat_research')
      .set({ ...set, updated_at: this.deps.clock.nowMs() })
      .where('id', '=', researchId)
      .where('status', 'in', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}
