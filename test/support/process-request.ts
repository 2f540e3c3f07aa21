import http from 'node:http';

/** Requests to servers running as processes (topology and fault suites), which may die mid-request. */
export interface Answer {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders;
}

const REQUEST_IDLE_LIMIT_MS = 120_000;

/** A request whose answer never came: the process died with it in flight. */
export class Cut extends Error {}

/**
 * One request on a connection of its own (no keep-alive): a pooled connection that the server
 * closes as idle just when the client reuses it fails like a killed process would, and on a
 * loaded machine that race is not rare.
 */
export function request(baseUrl: string, method: string, path: string, key: string | null, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      baseUrl + path,
      {
        method,
        agent: false,
        // A hang guard, not a speed check (socket idle time): under load 28 a sign, waiting for
        // the pool's lowered-priority workers, passed 30 s once and failed the topology test.
        timeout: REQUEST_IDLE_LIMIT_MS,
        headers: {
          ...(key ? { Authorization: `Bearer ${key}` } : {}),
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': String(payload.length) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => reject(new Cut(`${method} ${path} (answer): ${err.message}`)));
        res.on('end', () => {
          if (!res.complete) return reject(new Cut(`${method} ${path}: the answer was cut off`));
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = text ? JSON.parse(text) : null;
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${REQUEST_IDLE_LIMIT_MS / 1000} s`)));
    req.on('error', (err: NodeJS.ErrnoException) => reject(new Cut(`${method} ${path}: ${err.code ?? ''} ${err.message}`)));
    req.end(payload);
  });
}
