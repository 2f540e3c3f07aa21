import { randomBytes } from 'crypto';

/** Prefixed ids for resources that are not documents, participants or fields (those are UUIDs). */
export const prefixedId = (prefix: 'org' | 'usr' | 'key' | 'file' | 'tmpl' | 'seal' | 'whe' | 'msg' | 'del' | 'idem' | 'att' | 'bulk') =>
  `${prefix}_${randomBytes(12).toString('hex')}`;

/** A secret API key: 192 random bits after the mode prefix. */
export const newApiKey = (mode: 'test' | 'live') => `sk_${mode}_${randomBytes(24).toString('base64url')}`;
