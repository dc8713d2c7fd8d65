import type { Express } from 'express';
import { z } from 'zod';
import type { RouteRegistry } from '../route-registry.js';

/**
 * /favicon.ico and /robots.txt (issue 39, point 5): every browser asks for the first and every
 * crawler for the second, so without them /metrics counted their 404s. Both are made once at
 * start and cached by clients for a day.
 */
const CACHE = 'public, max-age=86400';

/**
 * Crawlers may read the published pages (/pub) and nothing of the console or the API; a
 * publication on its own domain has its pages at the root, which no line here disallows.
 */
export const ROBOTS_TXT = ['User-agent: *', 'Allow: /pub/', 'Disallow: /studio', 'Disallow: /api/', 'Disallow: /admin/', 'Disallow: /intentions/', 'Disallow: /query/', 'Disallow: /metrics', 'Disallow: /me', ''].join('\n');

/** The console's blue (#0b5cad) as a rounded square with a white "I" (Inntak), 32×32. */
const ICON_SIZE = 32;

function iconPixel(x: number, y: number): [r: number, g: number, b: number, a: number] {
  const edge = ICON_SIZE - 1;
  const corner = 6;
  const cx = x < corner ? corner : x > edge - corner ? edge - corner : x;
  const cy = y < corner ? corner : y > edge - corner ? edge - corner : y;
  if ((x - cx) ** 2 + (y - cy) ** 2 > corner ** 2) return [0, 0, 0, 0];
  const bar = x >= 13 && x <= 18 && y >= 7 && y <= 24;
  const serif = (y <= 9 || y >= 22) && x >= 9 && x <= 22 && y >= 7 && y <= 24;
  return bar || serif ? [255, 255, 255, 255] : [0x0b, 0x5c, 0xad, 255];
}

/** An ICO file holding one 32-bit BMP image (what every browser reads at /favicon.ico). */
export function faviconIco(): Buffer {
  const pixels = ICON_SIZE * ICON_SIZE * 4;
  const mask = ICON_SIZE * 4; // 1 bit a pixel, rows padded to 4 bytes: all 0 (the alpha channel decides)
  const image = 40 + pixels + mask;
  const out = Buffer.alloc(6 + 16 + image);
  out.writeUInt16LE(0, 0);
  out.writeUInt16LE(1, 2); // an icon
  out.writeUInt16LE(1, 4); // one image
  out.writeUInt8(ICON_SIZE, 6);
  out.writeUInt8(ICON_SIZE, 7);
  out.writeUInt16LE(1, 10); // colour planes
  out.writeUInt16LE(32, 12); // bits per pixel
  out.writeUInt32LE(image, 14);
  out.writeUInt32LE(22, 18);
  // BITMAPINFOHEADER: the height counts the AND mask too.
  out.writeUInt32LE(40, 22);
  out.writeInt32LE(ICON_SIZE, 26);
  out.writeInt32LE(ICON_SIZE * 2, 30);
  out.writeUInt16LE(1, 34);
  out.writeUInt16LE(32, 36);
  out.writeUInt32LE(pixels + mask, 42);
  // Rows bottom-up, each pixel blue, green, red, alpha.
  let at = 62;
  for (let y = ICON_SIZE - 1; y >= 0; y--) {
    for (let x = 0; x < ICON_SIZE; x++) {
      const [r, g, b, a] = iconPixel(x, y);
      out.writeUInt8(b, at++);
      out.writeUInt8(g, at++);
      out.writeUInt8(r, at++);
      out.writeUInt8(a, at++);
    }
  }
  return out;
}

export function installSiteFiles(app: Express, registry: RouteRegistry): void {
  registry.describe({
    method: 'get',
    path: '/favicon.ico',
    summary: "The site's icon (32×32 ICO), cacheable for a day",
    tags: ['site'],
    auth: 'public',
    response: { status: 200, schema: z.string().describe('An ICO image'), contentType: 'image/vnd.microsoft.icon', description: 'The icon' },
    errors: [],
  });
  registry.describe({
    method: 'get',
    path: '/robots.txt',
    summary: 'Rules for crawlers: the published pages (/pub) yes, the console and the API no',
    tags: ['site'],
    auth: 'public',
    response: { status: 200, schema: z.string(), contentType: 'text/plain', description: 'robots.txt' },
    errors: [],
  });
  const icon = faviconIco();
  app.get('/favicon.ico', (_req, res) => {
    res.status(200).type('image/vnd.microsoft.icon').setHeader('Cache-Control', CACHE);
    res.send(icon);
  });
  app.get('/robots.txt', (_req, res) => {
    res.status(200).type('text/plain; charset=utf-8').setHeader('Cache-Control', CACHE);
    res.send(ROBOTS_TXT);
  });
}
