import 'reflect-metadata';
import { readFile } from 'fs/promises';
import {
  AdminService,
  StateChange,
  formatProjectionStatus,
  loadConfig,
  openInfrastructure,
  parseInstant,
  pluginsNotLoadedHint,
  projectionStatus,
  readPluginRows,
  replayStream,
  summarizeChain,
  unloadedProjections,
} from '@dojang/application';
import { readTrustAnchors } from '@dojang/verifier';
import { ProgressBar } from './progress-bar';
import { StoredEvent } from '@dojang/event-store';
import { KEY_ROLES } from '@dojang/domain';

const USAGE = `Dojang admin and auditor CLI (npm run --silent cli -- <command>)

  org create --name NAME [--kind personal|team] [--plan business]
  org settings --org ORG_ID [--default-expiry-days N] [--reminder-interval-days N|none]
                           [--embed-origin https://app.example …|none] (origins allowed to frame the signing page)
  key issue --org ORG_ID --mode test|live [--role full|auditor]   auditor: read-only
  key revoke --org ORG_ID --key KEY_ID
  member add --org ORG_ID --name NAME --email EMAIL [--role owner|admin|member|viewer]
  credits grant --org ORG_ID --amount N [--reason TEXT]
  document lock|unlock DOCUMENT_ID
  stream show STREAM_ID [--json]        e.g. document-<uuid>, organization-<org_id>, delivery-<uuid>
        [--as-of ISO]                   only the events up to that instant, and the state folded from them
        [--diff]                        what each event changed in the folded state
  verify DOCUMENT_ID [--pdf FINAL.pdf] [--trust ANCHORS.pem]...
                                        check the hash chain, the signed chain head (re-hashing,
                                        truncation), the original and final PDF, and the chain of
                                        delivery-<uuid>; --pdf compares a final PDF you hold with
                                        the log; --trust (PEM or DER, repeatable; default: VERIFY_TRUST_ANCHORS): the final PDF's
                                        signer chain must reach one (without it: "untrusted issuer").
                                        Exit 1 on any failure, 2 on a missing or unreadable input.
  projections rebuild [NAME ...]
  projections status [--json]           position, lag, generation and last error of each projection
  report COLLECTION [--org ORG_ID]      rows of a PROJECTIONS plugin's collection (JSON)

Reads DATA_DIR (default ./data), DATABASE_URL, EVENTSTORE_URL, MONGO_URL and PROJECTIONS like the server; safe to run
while the server is running on the same data directory.`;

class UsageError extends Error {}
/** A file named on the command line that is missing or cannot be read: one line, exit 2 (as dojang-verify). */
class InputError extends Error {}

/** Every value of a repeatable flag (`--trust a.pem --trust=b.pem`); a flag given without one is an InputError. */
function repeated(argv: string[], name: string): string[] {
  const values: string[] = [];
  argv.forEach((a, i) => {
    if (a.startsWith(`--${name}=`)) values.push(a.slice(name.length + 3));
    else if (a === `--${name}`) values.push(i + 1 < argv.length && !argv[i + 1].startsWith('--') ? argv[i + 1] : '');
  });
  for (const v of values) if (!v) throw new InputError(`--${name} needs a file`);
  return values;
}

/** A file an auditor names (`--pdf`, `--trust`), read whole or refused in one line saying why. */
async function inputFile(flag: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    throw new InputError(`cannot read --${flag} ${file}: ${(error as Error).message}`);
  }
}

function parseArgs(argv: string[]): { positional: string[]; flags: Record<string, string | true> } {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const [k, inline] = a.slice(2).split('=', 2);
      if (inline !== undefined) flags[k] = inline;
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[k] = argv[++i];
      else flags[k] = true;
    } else positional.push(a);
  }
  return { positional, flags };
}

/** Every `--embed-origin` value (the flag repeats); `none` alone clears the list. */
function embedOrigins(argv: string[]): { embed_origins?: string[] } {
  const values: string[] = [];
  argv.forEach((a, i) => {
    if (a.startsWith('--embed-origin=')) values.push(a.slice('--embed-origin='.length));
    else if (a === '--embed-origin' && i + 1 < argv.length) values.push(argv[i + 1]);
  });
  if (values.length === 0) return {};
  return { embed_origins: values.length === 1 && values[0] === 'none' ? [] : values };
}

function need(flags: Record<string, string | true>, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || !v) throw new UsageError(`--${name} is required`);
  return v;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], name: string): T {
  if (!allowed.includes(value as T)) throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

function printStream(events: StoredEvent[]): string {
  return events
    .map((e) => {
      const m = e.metadata;
      return [
        `#${e.stream_revision} ${e.type}  at ${m.occurred_at}  by ${m.actor}  (global ${e.global_position}, id ${e.event_id})`,
        `   data: ${JSON.stringify(e.data)}`,
        `   hash: ${m.hash}  prev: ${m.prev_hash}`,
      ].join('\n');
    })
    .join('\n');
}

const compact = (v: unknown) => (v === undefined ? '∅' : JSON.stringify(v));

function printChanges(changes: StateChange[]): string {
  if (changes.length === 0) return '   (no change to the folded state)';
  return changes.map((c) => `   ${c.path}: ${compact(c.from)} → ${compact(c.to)}`).join('\n');
}

/** `stream show --as-of/--diff`: the stream folded by its aggregate's own evolve. */
function showReplay(streamId: string, events: StoredEvent[], asOf: number | null, diff: boolean, json: boolean): unknown {
  const replay = replayStream(streamId, events, asOf);
  if (!replay) throw new UsageError(`--as-of and --diff need a stream kind with a fold (document-, organization-, file-, template-, seal-, webhook_endpoint-, delivery-): ${streamId}`);
  const at = asOf === null ? null : new Date(asOf).toISOString();
  // The same verdict as GET /v1/documents/{id}/history: the whole stored stream, not only the shown part.
  const chain = summarizeChain(events);
  if (json) {
    return {
      stream_id: streamId,
      as_of: at,
      chain,
      events: replay.steps.map((s) => (diff ? { ...s.event, changes: s.changes } : s.event)),
      state: replay.state,
    };
  }
  if (replay.steps.length === 0) return `stream ${streamId} has no event${at ? ` by ${at}` : ''}`;
  const body = diff
    ? replay.steps.map((s) => `${printStream([s.event])}\n${printChanges(s.changes)}`).join('\n')
    : printStream(replay.steps.map((s) => s.event));
  const verdict = chain.verified ? `chain verified: ${chain.event_count} events, head ${chain.head_hash}` : `chain BROKEN at revision ${chain.broken_at}: ${chain.reason}`;
  const footer = at ? `\n\nstate as of ${at} (${replay.steps.length} of ${events.length} events):\n${JSON.stringify(replay.state, null, 2)}` : '';
  return `${body}${footer}\n\n${verdict}`;
}

async function run(argv: string[]): Promise<unknown> {
  const { positional, flags } = parseArgs(argv);
  const [group, action, ...rest] = positional;
  if (!group || flags.help) throw new UsageError('');
  const infra = await openInfrastructure({ ...loadConfig(), logLevel: 'silent' });
  const admin = new AdminService(infra);
  try {
    switch (`${group} ${action ?? ''}`.trim()) {
      case 'org create':
        return await admin.createOrganization({
          name: need(flags, 'name'),
          kind: flags.kind ? oneOf(String(flags.kind), ['personal', 'team'] as const, 'kind') : 'personal',
          plan: typeof flags.plan === 'string' ? flags.plan : 'business',
        });
      case 'org settings':
        return await admin.changeSettings(need(flags, 'org'), {
          ...(flags['default-expiry-days'] ? { default_expiry_days: Number(flags['default-expiry-days']) } : {}),
          ...(flags['reminder-interval-days']
            ? { reminder_interval_days: flags['reminder-interval-days'] === 'none' ? null : Number(flags['reminder-interval-days']) }
            : {}),
          ...embedOrigins(argv),
        });
      case 'key issue':
        return await admin.issueKey(
          need(flags, 'org'),
          oneOf(need(flags, 'mode'), ['test', 'live'] as const, 'mode'),
          flags.role === undefined ? 'full' : oneOf(String(flags.role), KEY_ROLES, 'role'),
        );
      case 'key revoke':
        return await admin.revokeKey(need(flags, 'org'), need(flags, 'key'));
      case 'member add':
        return await admin.addMember(need(flags, 'org'), {
          name: need(flags, 'name'),
          email: need(flags, 'email'),
          role: oneOf(typeof flags.role === 'string' ? flags.role : 'member', ['owner', 'admin', 'member', 'viewer'] as const, 'role'),
        });
      case 'credits grant': {
        const amount = Number(need(flags, 'amount'));
        return await admin.grantCredits(need(flags, 'org'), amount, typeof flags.reason === 'string' ? flags.reason : 'granted by CLI');
      }
      case 'document lock':
      case 'document unlock':
        if (!rest[0]) throw new UsageError('DOCUMENT_ID is required');
        return await admin.setEditLock(rest[0], action === 'lock');
      case 'projections rebuild': {
        const bar = new ProgressBar('rebuild');
        const started = process.hrtime.bigint();
        let events = 0;
        let position = 0;
        // Ctrl-C (or SIGTERM) stops after the commit under way rather than mid-write: the read
        // models' indexes are built again and the checkpoint says where the replay stands, so a
        // server goes on from there. A second one kills the process as usual.
        let interrupted = false;
        const interrupt = () => {
          interrupted = true;
          void infra.runner.stop();
        };
        process.once('SIGINT', interrupt);
        process.once('SIGTERM', interrupt);
        let rebuilt: string[];
        try {
          rebuilt = await admin.rebuildProjections(rest, (p) => {
            events = p.events;
            position = p.position;
            bar.update(p.position, p.head);
          });
        } finally {
          process.off('SIGINT', interrupt);
          process.off('SIGTERM', interrupt);
          bar.done();
        }
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const totals = { rebuilt, events, seconds: Math.round(seconds * 1000) / 1000, events_per_second: seconds > 0 ? Math.round(events / seconds) : events };
        if (!interrupted) return totals;
        process.exitCode = 130;
        return { ...totals, interrupted: true, position, note: 'stopped before the end of the log; a server (now or at its next start) goes on from this position' };
      }
      case 'projections status': {
        const projections = await projectionStatus(infra.events, infra.reads, infra.runner.projections);
        // Recorded on the store but not loaded here: the server runs a plugin this CLI lacks.
        const notLoaded = await unloadedProjections(infra.reads, infra.runner.projections);
        if (flags.json) return { projections, ...(notLoaded.length ? { not_loaded: notLoaded } : {}) };
        const note = notLoaded.length
          ? `\n\nNot loaded by this process, though recorded on this store: ${notLoaded.join(', ')}. ${pluginsNotLoadedHint(infra.config.projections)}`
          : '';
        return formatProjectionStatus(projections) + note;
      }
      default:
        break;
    }
    if (group === 'report') {
      if (!action) throw new UsageError('COLLECTION is required');
      return await readPluginRows(infra.reads, infra.runner.projections, action, typeof flags.org === 'string' ? flags.org : undefined);
    }
    if (group === 'stream' && action === 'show') {
      if (!rest[0]) throw new UsageError('STREAM_ID is required');
      const asOf = flags['as-of'] === undefined ? null : parseInstant(flags['as-of']);
      if (asOf === null && flags['as-of'] !== undefined) throw new UsageError('--as-of must be an ISO 8601 date or date-time with a UTC offset, e.g. 2026-03-02T09:00:00Z');
      const events = await admin.streamEvents(rest[0]);
      if (asOf === null && !flags.diff) {
        if (flags.json) return events;
        return events.length ? printStream(events) : `stream ${rest[0]} is empty or does not exist`;
      }
      return showReplay(rest[0], events, asOf, flags.diff === true, flags.json === true);
    }
    if (group === 'verify') {
      if (!action) throw new UsageError('DOCUMENT_ID is required');
      const [pdfFile, ...extra] = repeated(argv, 'pdf');
      if (extra.length) throw new InputError('--pdf is given once');
      const witnessPdf = pdfFile === undefined ? undefined : await inputFile('pdf', pdfFile);
      const trustAnchors: Buffer[] = [];
      for (const file of repeated(argv, 'trust')) {
        const bytes = await inputFile('trust', file);
        try {
          trustAnchors.push(...readTrustAnchors(bytes));
        } catch (error) {
          throw new InputError(`cannot read trust anchors --trust ${file}: ${(error as Error).message}`);
        }
      }
      const result = await admin.verifyDocument(action, { witnessPdf, trustAnchors });
      if (!result.found) {
        process.exitCode = 2;
        return { ...result, verdict: 'no such document stream' };
      }
      if (!result.intact) process.exitCode = 1;
      const failure = result.failure;
      const finalChecked = result.checks.some((c) => c.check === 'final_pdf' && c.status === 'ok');
      const sealed = result.checks.some((c) => c.check === 'head_signature' && c.status === 'ok');
      const concluded = result.checks.some((c) => c.check === 'seal' && c.status === 'ok');
      const delivered = result.deliveries === undefined ? '' : `, ${result.deliveries} deliveries chained in delivery-${action}`;
      return {
        ...result,
        verdict: !failure
          ? `intact: ${result.events} events, hash chain unbroken${sealed ? ', signed chain head matches' : ''}${concluded ? ', conclusion certified' : ''}${finalChecked ? ', final PDF matches its recorded SHA-256' : ''}${delivered}`
          : `BROKEN (${failure.check})${failure.event ? ` at revision ${failure.event.revision} ${failure.event.type} ${failure.event.id}` : ''}: ${failure.detail}`,
      };
    }
    throw new UsageError(`unknown command: ${positional.join(' ')}`);
  } finally {
    await infra.close();
  }
}

run(process.argv.slice(2))
  .then((out) => {
    if (out !== undefined) process.stdout.write(typeof out === 'string' ? `${out}\n` : `${JSON.stringify(out, null, 2)}\n`);
  })
  .catch((err) => {
    if (err instanceof InputError) {
      process.stderr.write(`error: ${err.message.replace(/\s*\n\s*/g, ' ')}\n`);
      process.exitCode = 2;
      return;
    }
    if (err instanceof UsageError) {
      if (err.message) process.stderr.write(`error: ${err.message}\n\n`);
      process.stderr.write(`${USAGE}\n`);
      process.exitCode = 64;
      return;
    }
    process.stderr.write(`error: ${err.message ?? err}\n`);
    process.exitCode = 1;
  });
