import * as fs from 'fs';
import * as path from 'path';
import { parse } from 'yaml';
import { loadConfig } from '@dojang/application';
import { storeKind } from '@dojang/application/runtime/stores';

/**
 * docker-compose.yml cannot be run here (no Docker), so its promises are checked on the parsed
 * file: the two production profiles and their services, pinned images, one secret source for every
 * process, the store URLs each profile's processes need (selected by the same code the processes
 * run), healthchecks, an API that scales behind the proxy, and only environment names the
 * configuration actually reads.
 */

const ROOT = path.join(__dirname, '..', '..');
// Compose resolves YAML merge keys (<<), a YAML 1.1 feature the parser takes as an option.
const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });
const services: Record<string, any> = compose.services;

const inProfile = (profile: string) =>
  Object.keys(services)
    .filter((name) => (services[name].profiles ?? []).includes(profile))
    .sort();
const role = (name: string): 'api' | 'worker' | null => {
  const command = (services[name].command ?? []).join(' ');
  return command.includes('dist/apps/api/') ? 'api' : command.includes('dist/apps/worker/') ? 'worker' : null;
};
const appServices = Object.keys(services).filter((name) => role(name) !== null);

/** Compose's interpolation of ${VAR}, ${VAR:-default} and ${VAR:?error}, with `$$` a literal `$`. */
function interpolate(value: string, env: Record<string, string>): string {
  return value
    .replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
      const v = env[name];
      if (v) return v;
      if (op === '?') throw new Error(`${name} required: ${arg}`);
      return op === '-' ? (arg ?? '') : '';
    })
    .replace(/\$\$/g, '$');
}

const OPERATOR_ENV = {
  SECRET_KEY: 'k'.repeat(44),
  SIGNING_P12_FILE: './secrets/signing.p12',
  SIGNING_P12_PASSWORD: 'pw',
  POSTGRES_PASSWORD: 'a1b2c3',
};

/** A service's environment as the container would get it. */
function environment(name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(services[name].environment ?? {}).map(([k, v]) => [k, interpolate(String(v), OPERATOR_ENV)]));
}

describe('docker-compose.yml', () => {
  it('has the postgres profile (PostgreSQL, api, worker, proxy) and the eventstore profile (EventStoreDB, MongoDB, api, worker, proxy)', () => {
    expect(inProfile('postgres')).toEqual(['api', 'postgres', 'proxy', 'worker']);
    expect(inProfile('eventstore')).toEqual(['api-eventstore', 'eventstore', 'mongodb', 'proxy', 'worker-eventstore']);
    const profiles = new Set(Object.values(services).flatMap((s: any) => s.profiles ?? []));
    expect([...profiles].sort()).toEqual(['eventstore', 'postgres']);
    for (const profile of ['postgres', 'eventstore']) {
      expect(inProfile(profile).map(role).filter(Boolean).sort()).toEqual(['api', 'worker']);
    }
  });

  it('pins every image to a full version, in the compose file and the Dockerfile', () => {
    // major.minor.patch; PostgreSQL's own versions have two parts (15.10 is a full release).
    const FULL = /^(?:postgres:\d+\.\d+|[\w.\/-]+:\d+\.\d+\.\d+)(-[\w.-]+)?$/;
    for (const [name, service] of Object.entries(services)) {
      if (service.build) {
        expect(service.image).toBe('dojang:local');
        continue;
      }
      expect(`${name}: ${service.image}`).toMatch(new RegExp(`^${name}: ${FULL.source.slice(1)}`));
      expect(service.image).not.toMatch(/^postgres:\d+(-|$)/);
      expect(service.image).not.toMatch(/latest/);
    }
    const froms = fs
      .readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((l) => /^FROM /.test(l))
      .map((l) => l.split(/\s+/)[1]);
    expect(froms.length).toBeGreaterThan(0);
    for (const image of froms) expect(image).toMatch(FULL);
  });

  it('gives every api and worker the same SECRET_KEY and signing certificate, from the environment and a compose secret', () => {
    expect(appServices.sort()).toEqual(['api', 'api-eventstore', 'worker', 'worker-eventstore']);
    const sources = appServices.map((name) => {
      const raw = services[name].environment;
      return JSON.stringify({ secret: raw.SECRET_KEY, p12: raw.SIGNING_P12, password: raw.SIGNING_P12_PASSWORD, secrets: services[name].secrets });
    });
    expect(new Set(sources).size).toBe(1);
    const env = services.api.environment;
    // Required from the operator's environment: compose refuses to start without it.
    expect(env.SECRET_KEY).toMatch(/^\$\{SECRET_KEY:\?.+\}$/);
    expect(env.SIGNING_P12_PASSWORD).toMatch(/^\$\{SIGNING_P12_PASSWORD[:}]/);
    // The certificate is a compose secret, mounted where SIGNING_P12 points.
    expect(services.api.secrets).toEqual(['signing_p12']);
    expect(env.SIGNING_P12).toBe('/run/secrets/signing_p12');
    expect(compose.secrets.signing_p12.file).toMatch(/^\$\{SIGNING_P12_FILE:\?.+\}$/);
    expect(() => interpolate(env.SECRET_KEY, {})).toThrow(/SECRET_KEY required/);
  });

  it('points the postgres profile at PostgreSQL and the eventstore profile at EventStoreDB + MongoDB, as the processes select them', () => {
    for (const name of appServices) {
      const env = environment(name);
      const profile = services[name].profiles[0];
      const kind = storeKind(loadConfig(env));
      if (profile === 'postgres') {
        expect(kind).toBe('postgres');
        expect(env.DATABASE_URL).toBe('postgres://dojang:a1b2c3@postgres:5432/dojang');
        expect(env.EVENTSTORE_URL ?? env.MONGO_URL).toBeUndefined();
        expect(services[name].depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
      } else {
        expect(kind).toBe('esdb+mongo');
        expect(env.EVENTSTORE_URL).toMatch(/^esdb:\/\/eventstore:2113\b/);
        // A replica set: the read store commits each batch in a transaction.
        expect(env.MONGO_URL).toMatch(/^mongodb:\/\/mongodb:27017\/dojang\?replicaSet=rs0$/);
        expect(env.DATABASE_URL).toBeUndefined();
        expect(Object.keys(services[name].depends_on).sort()).toEqual(['eventstore', 'mongodb']);
      }
      expect(env.ROLE).toBe(role(name));
      expect(loadConfig(env).role).toBe(role(name));
      expect(loadConfig(env).secretKey).toBe(OPERATOR_ENV.SECRET_KEY);
    }
    expect(services.mongodb.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
  });

  it('has a healthcheck on every service; the API is checked on its readiness, GET /v1/health/ready', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(`${name}: ${JSON.stringify(service.healthcheck?.test ?? null)}`).toMatch(new RegExp(`^${name}: \\["CMD`));
    }
    for (const name of appServices.filter((n) => role(n) === 'api')) expect(services[name].healthcheck.test.join(' ')).toContain("'/v1/health/ready'");
  });

  it('lets the API scale: no fixed host port on it, one proxy publishing a port and reaching every replica by a shared alias', () => {
    for (const name of appServices) expect(services[name].ports).toBeUndefined();
    const aliases = appServices.filter((n) => role(n) === 'api').map((n) => services[n].networks.default.aliases);
    expect(aliases).toEqual([['app-api'], ['app-api']]);
    expect(services.proxy.ports).toEqual(['${HTTP_PORT:-8080}:8080']);
    const conf = interpolate(compose.configs[services.proxy.configs[0].source].content, {});
    expect(conf).toContain('set $api http://app-api:3000;');
    expect(conf).toContain('proxy_pass $api;');
    // Re-resolved through Docker's DNS, so replicas started by --scale receive requests.
    expect(conf).toMatch(/resolver 127\.0\.0\.11 valid=\d+s/);
    expect(services.proxy.configs[0].target).toBe('/etc/nginx/conf.d/default.conf');
    // Stores are reachable from the host on loopback only, or not at all.
    for (const name of ['postgres', 'eventstore', 'mongodb']) for (const p of services[name].ports ?? []) expect(p).toMatch(/^127\.0\.0\.1:/);
  });

  it('sets only environment names that loadConfig reads', () => {
    const read = new Set<string>();
    // Any value for every name, except where loadConfig accepts only a few (it refuses others at
    // boot) or reads a file (VERIFY_TRUST_ANCHORS: none here).
    const oneOf: Record<string, string> = { PADES_LEVEL: 'B-LTA', SIGNING_KEY: 'file', REVOCATION_OCSP_URLS: 'http://ocsp.test/', REVOCATION_CRL_URLS: 'http://crl.test/ca.crl', VERIFY_TRUST_ANCHORS: '' };
    loadConfig(
      new Proxy({} as NodeJS.ProcessEnv, {
        get(_target, name) {
          if (typeof name === 'string') read.add(name);
          return typeof name === 'string' ? (oneOf[name] ?? 'x') : undefined;
        },
      }),
    );
    for (const name of appServices) {
      const unknown = Object.keys(services[name].environment).filter((k) => !read.has(k));
      expect(`${name}: ${unknown.join(', ')}`).toBe(`${name}: `);
    }
  });
});
