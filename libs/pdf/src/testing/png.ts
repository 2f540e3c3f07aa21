import { decodePngStrict } from '../png-decode';
import { encodePngPixels } from '../png-encode';
import { runPdfWorkOnThisThread } from '../main-thread-guard';

/**
 * PNG helpers for tests and benchmarks: RGBA pictures (signature stand-ins)
 * and pixel access to poppler's renderings.
 */

export type Rgba = [number, number, number, number];

/** Encodes width×height pixels produced by `pixel(x, y)` as an RGBA PNG. */
export function encodePng(width: number, height: number, pixel: (x: number, y: number) => Rgba): Buffer {
  const pixels = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) pixels.set(pixel(x, y), (y * width + x) * 4);
  }
  return encodePngPixels(width, height, 4, pixels);
}

export function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  return encodePng(width, height, () => [rgb[0], rgb[1], rgb[2], 255]);
}

/** A handwriting-like stand-in: transparent background, dark wavy strokes. */
export function signatureLikePng(width = 600, height = 200, seed = 1): Buffer {
  return encodePng(width, height, (x, y) => {
    const mid = height / 2 + Math.sin((x / width) * Math.PI * (3 + seed)) * height * 0.3;
    const mid2 = height / 2 + Math.cos((x / width) * Math.PI * (5 + seed)) * height * 0.2;
    const ink = Math.abs(y - mid) < 3 || Math.abs(y - mid2) < 2;
    return ink ? [20, 30, 90, 255] : [255, 255, 255, 0];
  });
}

export interface DecodedImage {
  width: number;
  height: number;
  /** Returns [r, g, b] of a pixel. */
  rgb(x: number, y: number): [number, number, number];
}

/** Decodes a PNG (e.g. pdftoppm output) for pixel checks. */
export function decodePng(png: Buffer): DecodedImage {
  // A test's own check, on the test's thread (an app in the same process forbids PDF work there).
  const { width, height, rgba } = runPdfWorkOnThisThread(() => decodePngStrict(png, 100_000_000));
  return {
    width,
    height,
    rgb: (x, y) => {
      const i = (y * width + x) * 4;
      return [rgba[i], rgba[i + 1], rgba[i + 2]];
    },
  };
}
