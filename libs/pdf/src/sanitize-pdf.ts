import { PDFArray, PDFDict, PDFDocument, PDFHexString, PDFName, PDFObject, PDFRef, PDFStream, PDFString } from 'pdf-lib';
import './native-deflate';
import { assertOffMainThread } from './main-thread-guard';

/**
 * Active content a signer must never be served: scripts, programs to launch, actions that run
 * on opening or on page and field events, forms that post elsewhere, and embedded files. Links
 * (/GoTo, and /URI to an http, https or mailto address) are plain navigation and stay; a /URI to
 * anything else (`javascript:`, `file:`, `data:`, a scheme-less path) is an `unsafe_link`.
 */
export type ActiveContentKind =
  | 'javascript'
  | 'launch'
  | 'open_action'
  | 'additional_actions'
  | 'embedded_files'
  | 'other_actions'
  | 'xfa'
  | 'unsafe_link';

/** The only link targets a signer may be sent to from a contract (issue 24, item 19). */
const SAFE_URI = /^(https?:\/\/|mailto:)/i;

/** Whether a /URI action's target is an http, https or mailto address, read as a viewer would. */
export function isSafeLinkUri(uri: string): boolean {
  // Viewers skip leading white space and control characters before the scheme ("\tjavascript:").
  return SAFE_URI.test(uri.replace(/^[\u0000-\u0020]+/, ''));
}

function uriOf(action: PDFDict): string | null {
  const uri = action.lookup(name('URI'));
  return uri instanceof PDFString || uri instanceof PDFHexString ? uri.decodeText() : null;
}

/** Action types that run something or send something; anything else (URI, GoTo, Named…) is navigation. */
const ACTIVE_ACTIONS: Record<string, ActiveContentKind> = {
  JavaScript: 'javascript',
  Launch: 'launch',
  SubmitForm: 'other_actions',
  ImportData: 'other_actions',
  ResetForm: 'other_actions',
  Rendition: 'other_actions',
  RichMediaExecute: 'other_actions',
  GoToE: 'embedded_files',
  GoToR: 'launch',
  Movie: 'other_actions',
  Sound: 'other_actions',
};

const name = (key: string) => PDFName.of(key);

function actionKind(doc: PDFDocument, value: PDFObject | undefined): ActiveContentKind | null {
  const action = value instanceof PDFRef ? doc.context.lookup(value) : value;
  if (!(action instanceof PDFDict)) return null;
  if (action.has(name('JS'))) return 'javascript';
  const type = action.lookup(name('S'));
  const kind = type instanceof PDFName ? ACTIVE_ACTIONS[type.decodeText()] : undefined;
  if (kind) return kind;
  if (type instanceof PDFName && type.decodeText() === 'URI' && !isSafeLinkUri(uriOf(action) ?? '')) return 'unsafe_link';
  // An allowed action may chain to one that is not.
  const next = action.get(name('Next'));
  if (next instanceof PDFArray) {
    for (let i = 0; i < next.size(); i++) {
      const k = actionKind(doc, next.get(i));
      if (k) return k;
    }
    return null;
  }
  return next ? actionKind(doc, next) : null;
}

function dictOf(object: PDFObject | undefined): PDFDict | undefined {
  if (object instanceof PDFDict) return object;
  if (object instanceof PDFStream) return object.dict;
  return undefined;
}

/** Every object reachable from the trailer; the rest is left out of the rewritten file. */
function reachable(doc: PDFDocument): Set<PDFRef> {
  const seen = new Set<PDFRef>();
  const stack: PDFObject[] = [];
  const { Root, Info } = doc.context.trailerInfo;
  for (const start of [Root, Info]) if (start) stack.push(start);
  while (stack.length) {
    const object = stack.pop()!;
    if (object instanceof PDFRef) {
      if (seen.has(object)) continue;
      seen.add(object);
      const target = doc.context.lookup(object);
      if (target) stack.push(target);
    } else if (object instanceof PDFArray) {
      for (let i = 0; i < object.size(); i++) stack.push(object.get(i));
    } else {
      const dict = dictOf(object);
      if (dict) for (const [, value] of dict.entries()) stack.push(value);
    }
  }
  return seen;
}

/**
 * Removes active content from `doc` in place and names what it removed (empty: nothing found).
 * Whatever is unlinked is also dropped from the file, so no script survives as an orphan object.
 */
export function removeActiveContent(doc: PDFDocument): ActiveContentKind[] {
  const found = new Set<ActiveContentKind>();
  const catalog = doc.catalog;

  if (catalog.has(name('OpenAction'))) {
    found.add(actionKind(doc, catalog.get(name('OpenAction'))) ?? 'open_action');
    found.add('open_action');
    catalog.delete(name('OpenAction'));
  }
  const names = catalog.lookupMaybe(name('Names'), PDFDict);
  if (names) {
    if (names.has(name('JavaScript'))) {
      found.add('javascript');
      names.delete(name('JavaScript'));
    }
    if (names.has(name('EmbeddedFiles'))) {
      found.add('embedded_files');
      names.delete(name('EmbeddedFiles'));
    }
  }
  const acroForm = catalog.lookupMaybe(name('AcroForm'), PDFDict);
  if (acroForm?.has(name('XFA'))) {
    found.add('xfa');
    acroForm.delete(name('XFA'));
  }

  // Every dictionary may carry /AA (catalog, pages, annotations, form fields) or an /A action.
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    const dict = dictOf(object);
    if (!dict) continue;
    if (dict.has(name('AA'))) {
      found.add('additional_actions');
      dict.delete(name('AA'));
    }
    const kind = dict.has(name('A')) ? actionKind(doc, dict.get(name('A'))) : null;
    if (kind) {
      found.add(kind);
      dict.delete(name('A'));
    }
    const annots = dict.lookupMaybe(name('Annots'), PDFArray);
    if (annots) {
      for (let i = annots.size() - 1; i >= 0; i--) {
        const annot = dictOf(doc.context.lookup(annots.get(i)));
        // An annotation written inline in /Annots is not an indirect object: its link is checked here.
        const linkKind = annot?.has(name('A')) ? actionKind(doc, annot.get(name('A'))) : null;
        if (annot && linkKind) {
          found.add(linkKind);
          annot.delete(name('A'));
        }
        const subtype = annot?.lookup(name('Subtype'));
        if (subtype instanceof PDFName && ['FileAttachment', 'RichMedia', 'Movie', 'Sound', 'Screen'].includes(subtype.decodeText())) {
          found.add(subtype.decodeText() === 'FileAttachment' ? 'embedded_files' : 'other_actions');
          annots.remove(i);
        }
      }
    }
  }

  if (found.size > 0) {
    const keep = reachable(doc);
    for (const [ref] of doc.context.enumerateIndirectObjects()) if (!keep.has(ref)) doc.context.delete(ref);
    // The trailer's /Size follows the highest object number left, or readers warn about it.
    doc.context.largestObjectNumber = Math.max(0, ...doc.context.enumerateIndirectObjects().map(([ref]) => ref.objectNumber));
  }
  return [...found].sort();
}

/** The PDF without its active content, or null when it had none (then the upload is kept byte for byte). */
export async function sanitizePdf(bytes: Buffer): Promise<{ bytes: Buffer; removed: ActiveContentKind[] } | null> {
  assertOffMainThread('sanitizePdf');
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const removed = removeActiveContent(doc);
  if (removed.length === 0) return null;
  return { bytes: Buffer.from(await doc.save({ useObjectStreams: false })), removed };
}
