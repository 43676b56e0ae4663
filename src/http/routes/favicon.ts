/**
 * `GET /favicon.ico`: the browser asks for it on every page; a 32×32 icon (two rails of a switchyard on the
 * brand colour) drawn here as an uncompressed ICO, so no binary file has to ship and no request ends in a 404.
 */
import type { App } from '../types.js';

const SIZE = 32;
const BRAND = [0x25, 0x63, 0xeb] as const; // RGB
const RAIL = [0xff, 0xff, 0xff] as const;

/** Whether pixel (x, y), y from the top, belongs to a rail: one straight, one branching off it. */
function onRail(x: number, y: number): boolean {
  const straight = x >= 9 && x <= 11 && y >= 5 && y <= 26;
  const branch = Math.abs(x - 10 - (26 - y) * 0.6) <= 1.5 && y >= 8 && y <= 18;
  return straight || branch;
}

function insideRoundedSquare(x: number, y: number): boolean {
  const radius = 6;
  const cx = Math.min(Math.max(x, radius), SIZE - 1 - radius);
  const cy = Math.min(Math.max(y, radius), SIZE - 1 - radius);
  return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row += 1) {
    const y = SIZE - 1 - row; // BMP rows run bottom-up
    for (let x = 0; x < SIZE; x += 1) {
      const offset = (row * SIZE + x) * 4;
      if (!insideRoundedSquare(x, y)) continue; // transparent
      const [r, g, b] = onRail(x, y) ? RAIL : BRAND;
      pixels.set([b, g, r, 0xff], offset);
    }
  }
  const mask = Buffer.alloc((SIZE * SIZE) / 8); // the alpha channel decides; an all-zero AND mask
  const header = Buffer.alloc(40);
  header.writeUInt32LE(40, 0);
  header.writeInt32LE(SIZE, 4);
  header.writeInt32LE(SIZE * 2, 8); // colour + mask
  header.writeUInt16LE(1, 12);
  header.writeUInt16LE(32, 14);
  header.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([header, pixels, mask]);
  const directory = Buffer.alloc(22);
  directory.writeUInt16LE(0, 0);
  directory.writeUInt16LE(1, 2); // icon
  directory.writeUInt16LE(1, 4); // one image
  directory.writeUInt8(SIZE, 6);
  directory.writeUInt8(SIZE, 7);
  directory.writeUInt16LE(1, 10);
  directory.writeUInt16LE(32, 12);
  directory.writeUInt32LE(image.length, 14);
  directory.writeUInt32LE(22, 18);
  return Buffer.concat([directory, image]);
}

export async function faviconRoutes(app: App): Promise<void> {
  const icon = faviconIco();
  app.get('/favicon.ico', { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(icon),
  );
}
