import { deflateSync } from 'node:zlib';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pako = require('pako') as { deflate: (input: Uint8Array, options?: unknown) => Uint8Array };

/**
 * pdf-lib compresses every stream it writes (content streams, images, object and cross-reference
 * streams) with pako, zlib in JavaScript, whose every call allocates and zeroes its window and
 * hash tables: about half of stamping a signature into a contract. Node's zlib writes the same
 * format (RFC 1950, default level) natively. pdf-lib reads `pako.deflate` from the module object
 * at each call, so replacing that property reaches it; calls with options (another library's
 * raw or gzip streams) keep pako. The bytes may differ from pako's, the stream they decode to
 * does not.
 */
if (!(pako.deflate as { native?: boolean }).native) {
  const jsDeflate = pako.deflate;
  const deflate = (input: Uint8Array, options?: unknown): Uint8Array => (options === undefined ? deflateSync(input) : jsDeflate(input, options));
  pako.deflate = Object.assign(deflate, { native: true });
}

export {};
