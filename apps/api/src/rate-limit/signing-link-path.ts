/** Express routes case-insensitively, so /V1/Signing/… reaches the same handlers. */
export const SIGNING_PATH = /^\/v1\/signing\/([^/?#]*)/i;

/** A request to the signing-link API, whose credential is the link's token, never an API key. */
export const isSigningLinkPath = (url: string) => SIGNING_PATH.test(url);
