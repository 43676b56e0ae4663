/**
 * A completed research analysis as a PDF (pdfkit): title, the question, each section with its heading, and the
 * sources the model cited. Streams are left uncompressed: the document stays small and its text searchable by
 * simple tools.
 */
import PDFDocument from 'pdfkit';
import type { ResearchSection } from './chat-research.js';

export interface ResearchDocument {
  title: string;
  prompt: string;
  sections: ResearchSection[];
  sources: string[];
  completedAt: number;
}

export function researchPdf(research: ResearchDocument): Promise<Buffer> {
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
    research.sources.forEach((url, index) => doc.text(`${index + 1}. ${url}`, { link: url }));
  }
  doc.end();
  return done;
}
