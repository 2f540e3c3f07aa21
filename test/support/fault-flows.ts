/**
 * The flows the fault suites run against real processes: a load of document writes with
 * Idempotency-Keys that retries through outages, the check that no acknowledged write was lost
 * or doubled, a sent document whose signing request the worker mails, and that mail's delivery
 * record. Each suite gives its API's address, its live key and a way to query its database.
 */
import { request } from './process-request';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface FaultFlowContext {
  api(): string;
  key(): string;
  query<R>(sql: string, params: unknown[]): Promise<{ rows: R[] }>;
}

export function faultFlows(ctx: FaultFlowContext) {
  let docs = 0;
  /**
   * Writes documents with Idempotency-Keys, retrying 503s, cut connections and 409
   * idempotency_key_in_use (after its Retry-After) with the same key, until stopped.
   *
   * `apis`: with more than one API process, a key's attempts take turns among them (its first
   * on the API of its number, each retry on the next), so a retry often lands on another process
   * than the attempt it repeats: the case where only the store can tell that the key was claimed.
   * `lanes`: clients side by side, each writing its own keys one after another.
   * `keyEveryMs`: besides the lanes, a new key (with a client of its own, retrying until answered)
   * every so many milliseconds, however slowly the earlier ones are answered: on a loaded machine
   * a lane's key can take seconds through the faults, and a soak judged on how many keys went
   * through them needs keys started at a set rate, not only as fast as answers come back.
   * `giveUpMs`: how long a key is retried before its client gives up (60 s); a soak whose faults last
   * that long needs longer, or keys begun as they began are given up just as they end.
   */
  function load(label: string, options: { apis?: () => string[]; lanes?: number; keyEveryMs?: number; giveUpMs?: number } = {}) {
    const apis = options.apis ?? (() => [ctx.api()]);
    const lanes = Math.max(2, options.lanes ?? 2);
    const acked = new Map<string, string>();
    const statuses: number[] = [];
    let retryAfterMissing = 0;
    /** Keys acknowledged by another API process than the one their first attempt went to. */
    let acrossApis = 0;
    /** Keys whose first attempt has been sent. */
    let started = 0;
    let stopped = false;
    const refused: string[] = [];
    const one = async (i: number) => {
      started++;
      const title = `${label} ${i}`;
      for (let attempt = 0, giveUp = Date.now() + (options.giveUpMs ?? 60_000); Date.now() < giveUp && !(stopped && refused.length); attempt++) {
        const targets = apis();
        try {
          const res = await request(targets[(i + attempt) % targets.length], 'POST', '/v1/documents', ctx.key(), { title, content: '<p>본문</p>' }, { 'Idempotency-Key': `${Buffer.from(label).toString('hex')}-${i}` });
          statuses.push(res.status);
          if (res.status === 201) {
            if (attempt % targets.length !== 0) acrossApis++;
            return void acked.set(title, res.body.id);
          }
          if (res.status === 503 && !res.headers['retry-after']) retryAfterMissing++;
          // The key is still held by an earlier attempt (its answer not settled yet): a real client
          // waits as told and retries with the same key, which then answers that attempt's document.
          if (res.status === 409 && res.body?.error?.code === 'idempotency_key_in_use') {
            if (!res.headers['retry-after']) retryAfterMissing++;
            await sleep(Math.min(Number(res.headers['retry-after']) || 1, 5) * 1000);
            continue;
          }
          // A refusal is not an outage: say it, and stop the load (the test fails on it).
          if (res.status !== 503) {
            refused.push(`${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
            if (res.status < 500) stopped = true;
            if (res.status < 500) return;
          }
        } catch (err) {
          statuses.push(0);
          if (!/ECONNRESET|ECONNREFUSED|socket hang up|no answer/.test(String((err as Error).message))) refused.push(String((err as Error).message));
        }
        await sleep(200);
      }
    };
    // At least two clients side by side: on a loaded machine one request could span a whole outage
    // (appended before it, answered 201 after), leaving a single client's load without a request
    // during it.
    const running = Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        for (let i = lane; !stopped && i < 100 * lanes; i += lanes) await one(i);
      }),
    );
    // Keys at a set rate, numbered after the lanes' (which stay below 100 × lanes).
    const paced: Promise<void>[] = [];
    const pacing = (async () => {
      if (!options.keyEveryMs) return;
      for (let i = 100 * lanes; !stopped; i++) {
        paced.push(one(i));
        await sleep(options.keyEveryMs);
      }
    })();
    return {
      acked,
      statuses,
      refused,
      retryAfterMissing: () => retryAfterMissing,
      acrossApis: () => acrossApis,
      started: () => started,
      async stop() {
        stopped = true;
        await Promise.all([running, pacing]);
        await Promise.all(paced);
      },
    };
  }

  /**
   * Acknowledged writes that cannot be read back with their title (lost), and titles created more
   * than once (one Idempotency-Key, two documents), for a test to assert or a soak to report.
   */
  async function lossesAndDuplicates(acked: Map<string, string>, label: string): Promise<{ lost: string[]; duplicates: string[] }> {
    const lost: string[] = [];
    for (const [title, id] of acked) {
      const res = await request(ctx.api(), 'GET', `/v1/documents/${id}`, ctx.key());
      if (res.status !== 200 || res.body?.title !== title) lost.push(`${title} (${id}): ${res.status} ${res.body?.title ?? ''}`);
    }
    const { rows } = await ctx.query<{ title: string; n: string }>(
      `SELECT data->>'title' AS title, count(*) AS n FROM events WHERE type = 'DocumentCreated' AND data->>'title' LIKE $1 || ' %' GROUP BY 1 HAVING count(*) > 1`,
      [label],
    );
    return { lost, duplicates: rows.map((r) => `${r.title} × ${r.n}`) };
  }

  /** Every acknowledged write is readable, and no title was written twice. */
  async function noLossNoDuplicates(acked: Map<string, string>, label: string): Promise<void> {
    expect(acked.size).toBeGreaterThan(0);
    expect(await lossesAndDuplicates(acked, label)).toEqual({ lost: [], duplicates: [] });
  }

  /** A live document with one signer, sent: the worker mails the signing request. */
  async function sendDocument(to: string): Promise<string> {
    const n = ++docs;
    const call = async (method: string, path: string, body: unknown, status: number) => {
      const res = await request(ctx.api(), method, path, ctx.key(), body);
      if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const doc = await call('POST', '/v1/documents', { title: `발송 ${n}`, content: '<p>본문</p>' }, 201);
    const parts = await call('POST', `/v1/documents/${doc.id}/participants/batch`, { participants: [{ name: '김서명', email: to, auth: 'none' }] }, 201);
    await call('PUT', `/v1/documents/${doc.id}/fields`, { fields: [{ participant_id: parts.data[0].id, type: 'signature', page: 1, x: 5, y: 60, width: 20, height: 8 }] }, 200);
    await call('POST', `/v1/documents/${doc.id}/send`, {}, 200);
    return doc.id as string;
  }

  /** The document's signing request: its message-log status and how many delivery records it has. */
  async function delivery(documentId: string): Promise<{ status: string | null; records: number }> {
    const log = await ctx.query<{ status: string }>(`SELECT doc->>'status' AS status FROM rm_message_log WHERE doc->>'document_id' = $1`, [documentId]).catch(() => ({ rows: [] }));
    const records = await ctx.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE stream_id = $1 AND type = 'MessageDelivered'`, [`delivery-${documentId}`]);
    return { status: log.rows[0]?.status ?? null, records: Number(records.rows[0].n) };
  }

  return { load, lossesAndDuplicates, noLossNoDuplicates, sendDocument, delivery };
}
