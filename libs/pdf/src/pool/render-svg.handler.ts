import { Resvg } from '@resvg/resvg-js';
import type { Bytes, RenderSvgInput } from './pdf-jobs';

/** The SVG as a PNG, its text set only in the given fonts. */
export default function renderSvgJob(input: RenderSvgInput): Bytes {
  const resvg = new Resvg(input.svg, {
    font: { fontFiles: input.font_files, loadSystemFonts: false, defaultFontFamily: input.default_font_family },
  });
  return resvg.render().asPng();
}
