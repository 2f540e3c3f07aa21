import { encodePngPixels } from '@dojang/pdf';

/** A solid RGBA PNG (a stand-in signature or seal image), from the service's own PNG encoder. */
export function solidPngBytes(width = 40, height = 20, rgba: number[] = [0, 0, 0, 255]): Buffer {
  const pixels = new Uint8Array(width * height * 4);
  for (let i = 0; i < pixels.length; i += 4) pixels.set(rgba, i);
  return encodePngPixels(width, height, 4, pixels);
}

/** The same as a data URL, the form the signing API takes. */
export function solidPng(width = 40, height = 20, rgba: number[] = [0, 0, 0, 255]): string {
  return `data:image/png;base64,${solidPngBytes(width, height, rgba).toString('base64')}`;
}
