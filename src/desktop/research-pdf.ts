/**
 * A completed research analysis as a PDF (pdfkit): title, the question, each section with its heading, and the
 * sources the model cited, each marked verified (fetched, the quoted passage found) or not, with the reason. Streams are left uncompressed: the document stays small and its text searchable by
 * simple tools.
 */
import type { ResearchSection } from './chat-research.js';
import type { SourceCheck } from './research-sources.js';

export interface ResearchDocument {
  title: string;
  prompt: string;
  sections: ResearchSection[];
  sources: string[];
  /** Each source's check (reachable, quoted passage found); absent for analyses finished before checks existed. */
  checks?: SourceCheck[];
  completedAt: number;
}

const REASONS: Record<string, string> = {
  unreachable: 'could not be fetched',
  no_quote: 'no passage quoted from it',
  quote_not_found: 'the quoted passage is not on the page',
};

/** "verified", or "not verified (why)"; "not checked" without a check. */
export function sourceMark(check: SourceCheck | undefined): string {
  if (!check) return 'not checked';
  return check.verified ? 'verified' : `not verified (${REASONS[check.reason ?? ''] ?? check.reason})`;
}

export async function researchPdf(research: ResearchDocument): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const doc = new PDFDocument({
    size: 'A4',
    margin: 56,
    compress: false,
    info: { Title: research.title, Creator: 'Switchyard desktop chat' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.fontSize(20).text(research.title);
  doc
    .moveDown(0.3)
    .fontSize(9)
    .fillColor('#555555')
    .text(`Completed ${new Date(research.completedAt).toISOString().replace('T', ' ').slice(0, 19)} UTC`);
  doc.moveDown(0.5).fontSize(10).text(`Question: ${research.prompt}`).fillColor('#000000');
  for (const section of research.sections) {
    doc.moveDown().fontSize(14).text(section.heading);
    doc
      .moveDown(0.3)
      .fontSize(11)
      .text(section.text || '-');
  }
  if (research.sources.length > 0) {
    doc.moveDown().fontSize(14).text('Sources');
    doc.moveDown(0.3).fontSize(10);
    research.sources.forEach((url, index) => {
      const check = research.checks?.find((entry) => entry.url === url);
      doc.fillColor('#000000').text(`${index + 1}. ${url}`, { link: url });
      doc
        .fillColor(check?.verified ? '#1a7f37' : '#b42318')
        .text(`   ${sourceMark(check)}${check?.verified && check.quote ? `: "${check.quote}"` : ''}`);
    });
    doc.fillColor('#000000');
  }
  doc.end();
  return done;
}
