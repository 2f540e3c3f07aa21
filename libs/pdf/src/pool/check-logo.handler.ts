import { Resvg } from '@resvg/resvg-js';
import { readImageInfo, sanitizeImage, sniffImageType, UnsafeImageError } from '../image-type';
import { bytes, type CheckLogoInput, type LogoCheck } from './pdf-jobs';

/** Leading bytes of an SVG or other XML/HTML: told apart so the refusal can say why. */
const MARKUP = /^(\ufeff)?\s*</;

/**
 * Whether a JPEG decodes: resvg draws it (as an SVG's image, scaled to a few pixels) and a JPEG has
 * no transparency, so a drawn one leaves opaque pixels while one resvg cannot decode leaves none.
 */
function jpegDecodes(jpeg: Buffer, width: number, height: number): boolean {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<image width="${width}" height="${height}" preserveAspectRatio="none" href="data:image/jpeg;base64,${jpeg.toString('base64')}"/></svg>`;
  const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: Math.min(width, 16) }, font: { loadSystemFonts: false } }).render();
  const px = rendered.pixels;
  for (let i = 3; i < px.length; i += 4) if (px[i] > 0) return true;
  return false;
}

export default function checkLogoJob(input: CheckLogoInput): LogoCheck {
  const image = bytes(input.image);
  const type = sniffImageType(image);
  if (!type) {
    const head = image.subarray(0, 512).toString('utf8');
    const svg = MARKUP.test(head) && /<svg[\s>]/i.test(head);
    return {
      ok: false,
      reason: 'unsupported_type',
      message: svg
        ? 'SVG logos are not accepted (an SVG can carry scripts and load other files): upload the logo as a PNG or JPEG.'
        : 'A logo is a PNG or a JPEG, judged by its bytes: these are neither.',
    };
  }
  const info = readImageInfo(image);
  if (!info) return { ok: false, reason: 'invalid_image', message: `The ${type.toUpperCase()} has no readable size in its header.` };
  if (info.width < 1 || info.height < 1 || info.width > input.max_side || info.height > input.max_side) {
    return { ok: false, reason: 'invalid_image', message: `The logo is ${info.width}×${info.height} pixels; at most ${input.max_side}×${input.max_side} are accepted.` };
  }
  try {
    const clean = sanitizeImage(image);
    if (clean.type === 'jpeg' && !jpegDecodes(clean.bytes, info.width, info.height)) {
      return { ok: false, reason: 'invalid_image', message: 'The JPEG does not decode (truncated or corrupt).' };
    }
    return { ok: true, type: clean.type, width: info.width, height: info.height, bytes: clean.bytes };
  } catch (err) {
    if (err instanceof UnsafeImageError) return { ok: false, reason: 'invalid_image', message: `The logo does not decode: ${err.message}.` };
    throw err;
  }
}
