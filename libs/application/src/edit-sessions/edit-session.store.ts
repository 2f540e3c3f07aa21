import { CollectionSpec, ReadDoc, ReadStore } from '@dojang/read-store';
import { randomBytes, timingSafeEqual } from 'crypto';
import { sha256Hex } from '../runtime/secrets';

/**
 * Edit sessions (issue 34): what an integrator's POST …/edit_session grants, kept in a side table
 * of the read store like signing drafts. A session is not a legal fact: every change it makes goes
 * through the API's own commands, whose events name the API key as their actor; the session only
 * says which key, which document or template, and which actions.
 *
 * Two kinds of row, both keyed by the SHA-256 of a secret (never the secret itself):
 * - `url`: the one-time URL's token, valid for URL_SECONDS and redeemed once (compare-and-set on
 *   the row's version, so two opens racing each other cannot both win);
 * - `session`: made when the URL is redeemed, its secret handed to that one page load only; the
 *   editor page's calls carry it, for SESSION_SECONDS at most.
 *
 * Both kinds are deleted by the worker's sweep (EditSessionStore.sweep) RETAIN_SECONDS after they
 * expired; a closed session or a used URL expires by its own time anyway, so that covers them too.
 *
 * Lives in libs/application (not next to the API's editor) so the worker, which runs the periodic
 * sweeps, can clean the table the API writes.
 */
export const EDIT_SESSIONS = 'edit_sessions';
/** Indexed by `expires_at`: the sweep reads only the rows past their time. */
export const EDIT_SESSIONS_COLLECTION: CollectionSpec = { name: EDIT_SESSIONS, indexes: [['expires_at']] };

/** "Valid for minutes": an integrator opens the URL in its iframe right after asking for it. */
export const URL_SECONDS = 5 * 60;
/** How long the opened editor may keep saving: one sitting, not a standing credential. */
export const SESSION_SECONDS = 60 * 60;
/**
 * How long a row is kept past its expiry before the sweep deletes it: meanwhile a late open of its
 * URL still reads "expired" (a clear page), not "no such session". Past it, nothing of the grant
 * (which key, which document) is kept for a URL nobody can use.
 */
export const RETAIN_SECONDS = 24 * 60 * 60;

export const EDIT_ACTIONS = ['save', 'send', 'preview'] as const;
export type EditAction = (typeof EDIT_ACTIONS)[number];
export type EditLocale = 'ko' | 'en';

export interface EditGrant {
  kind: 'document' | 'template';
  target_id: string;
  organization_id: string;
  livemode: boolean;
  /** The API key that opened it: the session does what that key may, and stops when it is revoked. */
  key_id: string;
  key_hash: string;
  actions: EditAction[];
  redirect_url: string | null;
  locale: EditLocale;
}

export interface EditSessionRow extends ReadDoc, EditGrant {
  /** Maintained by ReadStore.putIfVersion. */
  _version?: number;
  stage: 'url' | 'session';
  created_at: string;
  expires_at: string;
  /** url: when it was opened; session: when the editor was closed (cancelled). */
  used_at: string | null;
}

/** Why a secret is refused: never issued (or mistyped), used already, or past its time. */
export type EditRefusal = 'invalid' | 'used' | 'expired';

/** A URL-safe secret of 256 bits (the same shape as a signing token: [A-Za-z0-9_-]{43}). */
const newSecret = () => randomBytes(32).toString('base64url');
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export class EditSessionStore {
  private ready: Promise<void> | null = null;

  constructor(private readonly reads: ReadStore) {}

  private init(): Promise<void> {
    this.ready ??= this.reads.ensureCollection(EDIT_SESSIONS_COLLECTION).catch((err: unknown) => {
      this.ready = null;
      throw err;
    });
    return this.ready;
  }

  /**
   * The row a secret names, found by its hash and compared in constant time (as API keys are):
   * a lookup by hash already gives an attacker nothing to time, this keeps it so whatever the
   * store's index does.
   */
  private async lookUp(secret: string, stage: EditSessionRow['stage']): Promise<EditSessionRow | null> {
    if (!SECRET.test(secret)) return null;
    await this.init();
    const hash = sha256Hex(secret);
    const row = await this.reads.get<EditSessionRow>(EDIT_SESSIONS, hash);
    if (!row || row.stage !== stage || !timingSafeEqual(Buffer.from(row.id, 'hex'), Buffer.from(hash, 'hex'))) return null;
    return row;
  }

  /** The URL row a token names, used or not (to frame its refusal where the editor would have been). */
  urlRow(token: string): Promise<EditSessionRow | null> {
    return this.lookUp(token, 'url');
  }

  /** Issues a one-time URL token for the grant; only its hash is kept. */
  async issue(grant: EditGrant, now: Date): Promise<{ token: string; expires_at: string }> {
    await this.init();
    const token = newSecret();
    const expires_at = new Date(now.getTime() + URL_SECONDS * 1000).toISOString();
    const row: EditSessionRow = { id: sha256Hex(token), stage: 'url', ...grant, created_at: now.toISOString(), expires_at, used_at: null };
    if (!(await this.reads.putIfVersion(EDIT_SESSIONS, row, null))) throw new Error('edit session token collision');
    return { token, expires_at };
  }

  /**
   * Opens the URL once: marks it used (compare-and-set) and makes the editor's session. A URL
   * opened before, past its minutes, or never issued is refused and nothing is made.
   */
  async redeem(token: string, now: Date): Promise<{ session: string; row: EditSessionRow } | EditRefusal> {
    const url = await this.lookUp(token, 'url');
    if (!url) return 'invalid';
    if (url.used_at) return 'used';
    if (Date.parse(url.expires_at) <= now.getTime()) return 'expired';
    const used: EditSessionRow = { ...url, used_at: now.toISOString() };
    if (!(await this.reads.putIfVersion(EDIT_SESSIONS, used, Number(url._version ?? 0)))) return 'used';
    const session = newSecret();
    const { _version: _v, id: _id, stage: _s, created_at: _c, expires_at: _e, used_at: _u, ...grant } = url;
    const row: EditSessionRow = {
      id: sha256Hex(session),
      stage: 'session',
      ...grant,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + SESSION_SECONDS * 1000).toISOString(),
      used_at: null,
    };
    if (!(await this.reads.putIfVersion(EDIT_SESSIONS, row, null))) throw new Error('edit session collision');
    return { session, row };
  }

  /** The live session a secret names, or why it is refused (closed counts as used). */
  async session(secret: string, now: Date): Promise<EditSessionRow | EditRefusal> {
    const row = await this.lookUp(secret, 'session');
    if (!row) return 'invalid';
    if (row.used_at) return 'used';
    if (Date.parse(row.expires_at) <= now.getTime()) return 'expired';
    return row;
  }

  /** Ends a session (the editor's cancel, or its send): its secret works no more. */
  async close(row: EditSessionRow, now: Date): Promise<void> {
    await this.reads.putIfVersion(EDIT_SESSIONS, { ...row, used_at: now.toISOString() }, Number(row._version ?? 0));
  }

  /**
   * Deletes URL and session rows that expired RETAIN_SECONDS or more before `now`, at most `limit`
   * (the next sweep takes the rest); answers how many. No compare-and-set is needed: nothing
   * makes an expired row valid again (redeem and session refuse it before writing, and a close
   * racing the delete writes on its version, which a deleted row no longer has).
   */
  async sweep(now: Date, limit = 500): Promise<number> {
    await this.init();
    const before = new Date(now.getTime() - RETAIN_SECONDS * 1000).toISOString();
    const old = await this.reads.find<EditSessionRow>(EDIT_SESSIONS, { where: { expires_at: { $lte: before } }, limit });
    if (old.length) await this.reads.commit(old.map((row) => ({ op: 'delete' as const, collection: EDIT_SESSIONS, id: row.id })), {});
    return old.length;
  }
}
