/**
 * Sources of a research analysis: retrieval through an operator-configured search API (config
 * `desktop.chat.researchSources.searchUrl`), and the check of every cited source — fetched through the SSRF-safe
 * client (`src/net/safe-fetch.ts`: public addresses only unless allowed, https, size and time capped) and marked
 * verified when it was reachable and a sentence the report quotes from it ("…") is found in its text.
 */
import fs from 'node:fs';
import { SafeFetchError, safeDownload, systemResolver, type Resolver, type SafeFetchPolicy } from '../net/safe-fetch.js';

export interface SearchResult {
  url: string;
  title: string;
  snippet: string;
}

export interface SourceCheck {
  url: string;
  verified: boolean;
  /** Why not verified: unreachable (refused, failed, too large, timed out), no_quote, quote_not_found. */
  reason: 'unreachable' | 'no_quote' | 'quote_not_found' | null;
  quote: string | null;
}

export interface ResearchSourcesConfig {
  searchUrl?: string;
  searchApiKey?: string;
  maxResults: number;
  allowHosts: readonly string[];
  ports: readonly number[];
  maxBytes: number;
  timeoutMs: number;
  extraCaFile?: string;
}

const MIN_QUOTE_CHARS = 12;
const QUOTE_PATTERN = /["“]([^"”\n]{12,400})["”]/g;

/** Text of an HTML or plain-text page: tags, scripts and styles dropped, entities of quotes decoded, spaces collapsed, lower case. */
export function pageText(body: string): string {
  return body
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&(quot|#34);/g, '"')
    .replace(/&(apos|#39);/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** The quotes a section attributes to `url`: quoted passages in the paragraph (or line) that cites it. */
export function quotesFor(url: string, texts: string[]): string[] {
  const quotes: string[] = [];
  for (const text of texts) {
    for (const block of text.split(/\n\s*\n|\n/)) {
      if (!block.includes(url)) continue;
      for (const match of block.matchAll(QUOTE_PATTERN)) {
        const quote = match[1]!.replace(/\s+/g, ' ').trim();
        if (quote.length >= MIN_QUOTE_CHARS && !quotes.includes(quote)) quotes.push(quote);
      }
    }
  }
  return quotes;
}

export class ResearchSources {
  private readonly policy: SafeFetchPolicy;
  /** How host names are resolved for source checks (tests point names at chosen addresses). */
  resolve: Resolver = systemResolver;

  constructor(private readonly config: ResearchSourcesConfig) {
    this.policy = {
      allowHosts: config.allowHosts,
      denyHosts: [],
      onlyAllowHosts: false,
      ports: config.ports,
      maxBytes: config.maxBytes,
      maxRedirects: 5,
      timeoutMs: config.timeoutMs,
      extraCa: config.extraCaFile ? fs.readFileSync(config.extraCaFile, 'utf8') : undefined,
    };
  }

  get searchConfigured(): boolean {
    return this.config.searchUrl !== undefined;
  }

  /** Results of the configured search API for a question (empty when none is configured). */
  async search(query: string, signal: AbortSignal): Promise<SearchResult[]> {
    if (this.config.searchUrl === undefined) return [];
    const url = new URL(this.config.searchUrl);
    url.searchParams.set('q', query.slice(0, 500));
    url.searchParams.set('count', String(this.config.maxResults));
    const response = await fetch(url, {
      headers: { accept: 'application/json', ...(this.config.searchApiKey ? { authorization: `Bearer ${this.config.searchApiKey}` } : {}) },
      signal: AbortSignal.any([signal, AbortSignal.timeout(this.config.timeoutMs)]),
    });
    if (!response.ok) throw new Error(`search API answered ${response.status}`);
    const body = (await response.json()) as { results?: unknown };
    const results = Array.isArray(body.results) ? body.results : [];
    return results
      .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null && typeof item.url === 'string')
      .filter((item) => /^https?:\/\//.test(String(item.url)))
      .slice(0, this.config.maxResults)
      .map((item) => ({
        url: String(item.url),
        title: typeof item.title === 'string' ? item.title.slice(0, 300) : '',
        snippet: typeof item.snippet === 'string' ? item.snippet.slice(0, 1000) : '',
      }));
  }

  /** Checks each source against the section texts that cite it (in parallel, each within its own deadline). */
  async check(urls: string[], texts: string[]): Promise<SourceCheck[]> {
    return Promise.all(urls.map((url) => this.checkOne(url, quotesFor(url, texts))));
  }

  private async checkOne(url: string, quotes: string[]): Promise<SourceCheck> {
    let text: string;
    try {
      const downloaded = await safeDownload(url, this.policy, this.resolve);
      text = pageText(downloaded.body.toString('utf8'));
    } catch (error) {
      if (!(error instanceof SafeFetchError)) throw error;
      return { url, verified: false, reason: 'unreachable', quote: null };
    }
    if (quotes.length === 0) return { url, verified: false, reason: 'no_quote', quote: null };
    const found = quotes.find((quote) => text.includes(quote.toLowerCase()));
    return found === undefined
      ? { url, verified: false, reason: 'quote_not_found', quote: quotes[0]! }
      : { url, verified: true, reason: null, quote: found };
  }
}
