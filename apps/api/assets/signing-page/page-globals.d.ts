// What the signing page's modules use beyond the DOM's own types, for their type check (checkJs).

/** signature_pad, loaded before the modules as a classic script (index.html). */
interface Window {
  SignaturePad: any;
}
