import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, PDFHexString, PDFName, PDFString, StandardFonts } from 'pdf-lib';

/**
 * A PDF carrying every kind of active content at once, built object by object: an /OpenAction
 * script, a /Names /JavaScript tree, a /Launch link, page and catalog /AA, an embedded file (name
 * tree and a FileAttachment annotation), and one plain /URI link that must survive.
 */
export async function activeContentPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  page.drawText('Active content fixture', { x: 50, y: 780, size: 18, font: await doc.embedFont(StandardFonts.Helvetica) });
  const ctx = doc.context;
  const js = (code: string) => ctx.obj({ S: 'JavaScript', JS: PDFString.of(code) });

  doc.catalog.set(PDFName.of('OpenAction'), ctx.register(js('app.alert("open")')));
  doc.catalog.set(PDFName.of('AA'), ctx.obj({ WC: ctx.register(js('app.alert("close")')) }));
  const embedded = ctx.register(ctx.stream('secret payload', { Type: 'EmbeddedFile' }));
  const filespec = ctx.register(ctx.obj({ Type: 'Filespec', F: PDFString.of('payload.txt'), EF: { F: embedded } }));
  doc.catalog.set(
    PDFName.of('Names'),
    ctx.obj({
      JavaScript: { Names: [PDFHexString.fromText('init'), ctx.register(js('app.alert("names")'))] },
      EmbeddedFiles: { Names: [PDFHexString.fromText('payload.txt'), filespec] },
    }),
  );
  page.node.set(PDFName.of('AA'), ctx.obj({ O: ctx.register(js('app.alert("page open")')) }));
  const launch = ctx.register(
    ctx.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 700, 250, 720], A: { S: 'Launch', F: PDFString.of('calc.exe') } }),
  );
  const uri = ctx.register(
    ctx.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 650, 250, 670], A: { S: 'URI', URI: PDFString.of('https://example.com/terms') } }),
  );
  const attachment = ctx.register(ctx.obj({ Type: 'Annot', Subtype: 'FileAttachment', Rect: [50, 600, 70, 620], FS: filespec }));
  page.node.set(PDFName.of('Annots'), ctx.obj([launch, uri, attachment]));
  return Buffer.from(await doc.save({ useObjectStreams: true }));
}

/** Every name qpdf sees in the file, as dictionary keys and as values (qpdf --json, all objects). */
export function qpdfNames(pdf: Buffer): { keys: Set<string>; values: Set<string> } {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-qpdf-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    const json = JSON.parse(execFileSync('qpdf', ['--json', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
    const keys = new Set<string>();
    const values = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k.startsWith('/')) keys.add(k);
          walk(v);
        }
      } else if (typeof node === 'string' && node.startsWith('/')) values.add(node);
    };
    walk(json);
    return { keys, values };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const ACTIVE_KEYS = ['/OpenAction', '/AA', '/JS', '/EmbeddedFiles', '/EF'];
export const ACTIVE_VALUES = ['/JavaScript', '/Launch', '/FileAttachment', '/EmbeddedFile'];

/**
 * A PDF whose link annotations point at javascript:, file:, data: and a scheme-less path (one of
 * them written inline in /Annots, one hex-encoded with a leading tab and odd case), beside http,
 * https and mailto links that must survive.
 */
export async function unsafeLinksPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  page.drawText('Links fixture', { x: 50, y: 780, size: 18, font: await doc.embedFont(StandardFonts.Helvetica) });
  const ctx = doc.context;
  const link = (y: number, uri: PDFString | PDFHexString) => ctx.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, y, 250, y + 20], A: { S: 'URI', URI: uri } });
  page.node.set(
    PDFName.of('Annots'),
    ctx.obj([
      ctx.register(link(700, PDFString.of('javascript:alert(1)'))),
      link(660, PDFHexString.fromText('\tJaVaScRiPt:alert(2)')),
      ctx.register(link(620, PDFString.of('file:///etc/passwd'))),
      ctx.register(link(580, PDFString.of('data:text/html,<script>alert(3)</script>'))),
      ctx.register(link(540, PDFString.of('../../secret.pdf'))),
      ctx.register(link(500, PDFString.of('https://example.com/terms'))),
      ctx.register(link(460, PDFString.of('http://example.com/privacy'))),
      link(420, PDFString.of('mailto:legal@example.com')),
    ]),
  );
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** Every string value qpdf reads in the file (qpdf --json v2 writes them as "u:…" or "b:…"). */
export function qpdfStrings(pdf: Buffer): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'dojang-qpdf-'));
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    const json = JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
    const out: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') Object.values(node).forEach(walk);
      else if (typeof node === 'string' && /^[ub]:/.test(node)) out.push(node.startsWith('b:') ? Buffer.from(node.slice(2), 'hex').toString('latin1') : node.slice(2));
    };
    walk(json);
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
