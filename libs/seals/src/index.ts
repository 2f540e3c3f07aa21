/**
 * Organization seals (직인): generating a seal image from a company name, checking uploaded
 * seal images, and filling {{variable}} placeholders of document templates.
 * Pure functions only; no framework or storage dependencies.
 */
export * from './errors';
export * from './seal';
export * from './personal-seal';
export * from './image';
export * from './template';
