/** PDF receipt of a paid order, made with pdfkit: seller, customer, order id, amounts in USD and coin, dates. */
import { formatUsd } from '../../kernel/money.js';
import type { PaymentRow } from './ledger-effects.js';
import type { CryptoDetails } from './crypto.js';

export interface ReceiptParties {
  seller: { name: string; address: string; email: string };
  customer: { email: string; name: string | null };
}

export async function receiptPdf(order: PaymentRow, parties: ReceiptParties): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const details = JSON.parse(order.details_json ?? '{}') as Partial<CryptoDetails>;
  const doc = new PDFDocument({ size: 'A4', margin: 56, info: { Title: `Receipt ${order.public_id}`, Author: parties.seller.name } });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const iso = (ms: number | null) => (ms === null ? '-' : new Date(Number(ms)).toISOString().replace('T', ' ').slice(0, 19) + ' UTC');
  doc.fontSize(20).text('Receipt', { align: 'left' });
  doc.moveDown(0.5).fontSize(11);
  doc.text(`Seller: ${parties.seller.name}`);
  if (parties.seller.address) doc.text(parties.seller.address);
  if (parties.seller.email) doc.text(parties.seller.email);
  doc.moveDown();
  doc.text(`Customer: ${parties.customer.name ? `${parties.customer.name} <${parties.customer.email}>` : parties.customer.email}`);
  doc.moveDown();
  const rows: [string, string][] = [
    ['Order', order.public_id],
    ['Status', 'Paid'],
    ['Item', order.pack_id ?? '-'],
    ['Amount (USD)', `USD ${formatUsd(Number(order.amount_micros)).replace(/(\.\d{2})\d+$/, '$1')}`],
    ['Paid in coin', `${details.actually_paid ?? details.pay_amount ?? '-'} ${(details.pay_currency ?? '').toUpperCase()}`],
    ['Network', details.network ?? '-'],
    ['Credit loaded', `USD ${formatUsd(Number(order.credit_micros)).replace(/(\.\d{2})\d+$/, '$1')} (${order.wallet} wallet)`],
    ['Ordered', iso(Number(order.created_at))],
    ['Paid', iso(order.credited_at)],
    ['Processor payment', details.processor_payment_id ?? '-'],
  ];
  for (const [label, value] of rows) doc.text(`${label}: ${value}`);
  doc.moveDown().fontSize(9).text('Checkout is in USD; the coin amount is what the processor reported as paid.');
  doc.end();
  return done;
}
