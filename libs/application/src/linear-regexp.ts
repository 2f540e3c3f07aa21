import { setFlagsFromString } from 'v8';

/**
 * Enables V8's linear-time RegExp engine (the `l` flag) in this process, which the domain uses
 * for the patterns integrators put on text fields (libs/domain/src/document/field-types.ts):
 * a pattern it cannot run in linear time is refused at PUT /fields, so no pattern a signer's
 * value meets can backtrack catastrophically. The flag only makes the `l` flag available; it
 * changes no other RegExp. Every process that decides commands loads @dojang/application.
 */
export function enableLinearRegExp(): void {
  setFlagsFromString('--enable-experimental-regexp-engine');
}

enableLinearRegExp();
