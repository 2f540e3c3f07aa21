/**
 * The layer table of docs/ARCHITECTURE.md, enforced: `npm run deps:validate` (run before the
 * tests) fails on any import that crosses a layer the wrong way. Rules judge production code;
 * specs, contract suites and `testing/` helpers may wire real adapters to exercise a layer.
 */
const TEST_CODE = '\\.(spec|contract-spec|e2e-spec|browser-spec)\\.ts$|\\.contract\\.ts$|/testing/|\\.spec-helpers\\.ts$';
const STORES = '(event-store|read-store|blob-store)';
/** A backend's entry point or adapter: loading one loads its driver. */
const BACKEND = `^libs/${STORES}/src/([^/]+\\.adapter|sqlite|esdb|mongo|file|gridfs|postgres)\\.ts$`;
const DRIVERS = '^(better-sqlite3|mongodb|@eventstore/db-client|pg)$|node_modules/(better-sqlite3|mongodb|@eventstore/db-client|pg)/';
const NEST = '^@nestjs/|node_modules/@nestjs/';
/**
 * libs/pdf's files that read signatures through libs/verifier: the public verify job, and the
 * check before signing, which judges revocation data with the verifiers' own rules.
 */
const PDF_READS_SIGNATURES = '^libs/pdf/src/pool/(verify-pdf\\.handler|pdf-jobs)\\.ts$';
/**
 * libs/pdf's pool, which runs the evidence jobs (signing, countersigning, timestamps, key probes)
 * in its worker threads, and its test helpers (PKI fixtures built with libs/evidence's CMS code).
 */
const PDF_RUNS_EVIDENCE = '^libs/pdf/src/(pool|testing)/';
/**
 * Bulk send's table parser (CSV, XLSX): it belongs with the rows it reads, and runs only in the PDF
 * pool, whose `table.parse` handler (and the job's types in pdf-jobs.ts) load it by relative path.
 */
const TABLE_PARSER = '^libs/application/src/bulk-send/parse-table\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-is-pure',
      comment:
        'libs/domain imports only itself: no Nest, no database types, no Node I/O, no other lib. The one package it uses is libphonenumber-js (plain JavaScript, no I/O): the phone rule (shared/phone-number.ts) needs its numbering-plan metadata, and the signing page bundles the same rule.',
      severity: 'error',
      from: { path: '^libs/domain/' },
      to: { pathNot: ['^libs/domain/', '^libphonenumber-js(/|$)', 'node_modules/libphonenumber-js/'] },
    },
    {
      name: 'ports-know-no-adapters',
      comment: 'A port (*.port.ts) names what a store does; it imports no adapter, no backend and no driver.',
      severity: 'error',
      from: { path: '\\.port\\.ts$' },
      to: { path: `${BACKEND}|${DRIVERS}|^libs/(application|projections|postgres)/` },
    },
    {
      name: 'stores-import-domain-and-drivers-only',
      comment: 'libs/event-store|read-store|blob-store import domain types, their own code, their drivers and the shared PostgreSQL pool.',
      severity: 'error',
      from: { path: `^libs/${STORES}/`, pathNot: TEST_CODE },
      to: { path: '^(libs|apps)/', pathNot: ['^libs/domain/', '^libs/postgres/', '^libs/sqlite/', `^libs/$1/`] },
    },
    {
      name: 'pure-libraries-stand-alone',
      comment:
        "libs/pdf, notifications, webhooks and seals use their npm packages and no other @dojang lib; the exceptions are four domain files that import nothing: zoned-time.ts, so the audit certificate shows an organization's times exactly as its messages do; key-names.ts, so a template body's {{ 직원.이름 }} placeholders follow the rule role names follow; distinguished-name.ts, so a certificate's name reads the same in the API, the log and the PDF; and phone-reading.ts, so the senders dial a stored phone read exactly as the API read it. Their tests may borrow another lib's test fixtures (a minimal JPEG).",
      severity: 'error',
      from: { path: '^libs/(pdf|notifications|webhooks|seals)/', pathNot: [PDF_READS_SIGNATURES, PDF_RUNS_EVIDENCE, '\\.spec\\.ts$'] },
      to: { path: '^(libs|apps)/', pathNot: ['^libs/$1/', '^libs/domain/src/shared/(zoned-time|key-names|distinguished-name|phone-reading)\\.ts$'] },
    },
    {
      name: 'pure-libraries-test-fixtures-only',
      comment: 'What a stand-alone lib borrows from another lib is test fixtures, and only in its tests.',
      severity: 'error',
      from: { path: '^libs/(pdf|notifications|webhooks|seals)/.*\\.spec\\.ts$' },
      to: { path: '^(libs|apps)/', pathNot: ['^libs/$1/', '^libs/[^/]+/src/testing/', '^libs/domain/src/shared/zoned-time\\.ts$', '^libs/evidence/src/'] },
    },
    {
      name: 'pdf-reads-signatures-with-the-verifier',
      comment:
        "The public verify job (and its output type) reads a PDF's signatures with the offline verifier's own code, so the page and dojang-verify judge alike, and the check before signing judges revocation data as the verifiers do; libs/verifier stands alone itself (rule verifier-offline).",
      severity: 'error',
      from: { path: PDF_READS_SIGNATURES },
      to: { path: '^(libs|apps)/', pathNot: ['^libs/pdf/', '^libs/verifier/src/', '^libs/evidence/src/', TABLE_PARSER] },
    },
    {
      name: 'pool-runs-evidence',
      comment:
        "libs/pdf's pool handlers (and its test helpers) run libs/evidence's signing, timestamp and key code in the worker threads, by relative path (a worker thread resolves no @dojang/* alias); besides libs/pdf itself, the verifier files the verify job reads and bulk send's table parser, that is all they import.",
      severity: 'error',
      from: { path: PDF_RUNS_EVIDENCE, pathNot: [PDF_READS_SIGNATURES, '\\.spec\\.ts$'] },
      to: { path: '^(libs|apps)/', pathNot: ['^libs/pdf/', '^libs/evidence/src/', TABLE_PARSER] },
    },
    {
      name: 'evidence-stands-on-pdf-primitives',
      comment:
        "libs/evidence (keys, CMS, timestamps, PAdES/LTV, the check before signing) imports its npm packages, three PDF primitives of libs/pdf (the incremental-update writer, the main-thread guard, native deflate), the verifier's revocation rules (one judge for signer and verifier) and the domain's distinguished-name rule; never the pool, rendering, or an application layer. Its tests may borrow libs/pdf's fixtures and pool handlers.",
      severity: 'error',
      from: { path: '^libs/evidence/', pathNot: [TEST_CODE, '^libs/evidence/src/evidence-bundle\\.ts$'] },
      to: {
        path: '^(libs|apps)/',
        pathNot: [
          '^libs/evidence/',
          '^libs/pdf/src/(append-pdfs|main-thread-guard|native-deflate)\\.ts$',
          '^libs/verifier/src/revocation\\.ts$',
          '^libs/domain/src/shared/distinguished-name\\.ts$',
        ],
      },
    },
    {
      name: 'bundle-writer-beside-its-reader',
      comment:
        "The evidence bundle's writer (libs/evidence evidence-bundle.ts) writes the layout its reader (libs/verifier) defines, through the verifier's package entry; it names stored events and the pool's ZIP entries by their packages' types and the domain's text rule. No pool, no application layer: the API's controller gathers the parts and hands it a zipper and a signer.",
      severity: 'error',
      from: { path: '^libs/evidence/src/evidence-bundle\\.ts$' },
      to: { path: '^(libs|apps)/', pathNot: ['^libs/evidence/', '^libs/(verifier|domain|event-store|pdf)/src/index\\.ts$'] },
    },
    {
      name: 'pdf-work-through-the-pool',
      comment:
        'apps/ and libs/application reach PDF work through @dojang/pdf (the pool client and cheap helpers), never a layout, parsing (PDF, CSV, XLSX) or imaging library nor a module of libs/pdf directly: that work runs in the PDF pool, and the layout functions also refuse the main thread at run time (main-thread-guard.ts).',
      severity: 'error',
      from: { path: '^(apps/|libs/application/)', pathNot: [TEST_CODE, TABLE_PARSER] },
      to: {
        path: [
          '^libs/pdf/src/(?!index\\.ts$)',
          '^libs/evidence/src/(?!index\\.ts$)',
          '^(pdfmake|pdf-lib|pdfkit|fontkit|linebreak|sanitize-html|fflate|@resvg/resvg-js|@signpdf/.+|node-forge|csv-parse|exceljs)(/|$)',
          'node_modules/(pdfmake|pdf-lib|pdfkit|fontkit|linebreak|sanitize-html|fflate|@resvg/resvg-js|@signpdf/[^/]+|node-forge|csv-parse|exceljs)/',
        ],
      },
    },
    {
      name: 'pdf-holds-rendering-and-the-pool',
      comment:
        "libs/pdf is rendering (layout, stamping, page images, sanitising) and the CPU job pool. Keys, CMS and PKCS#11 live in libs/evidence and table parsing with bulk send: no file of libs/pdf (tests and test helpers included) imports their packages; a pool handler calls libs/evidence or the table parser instead.",
      severity: 'error',
      from: { path: '^libs/pdf/' },
      to: {
        path: [
          '^(csv-parse|exceljs|iconv-lite|node-forge|pkcs11js|pkijs|asn1js|@signpdf/.+)(/|$)',
          'node_modules/(csv-parse|exceljs|iconv-lite|node-forge|pkcs11js|pkijs|asn1js|@signpdf/[^/]+)/',
        ],
      },
    },
    {
      name: 'libs-meet-through-package-entries',
      comment:
        "A lib imports another lib through its package entry (@dojang/<lib> or a declared subpath such as @dojang/event-store/hash-chain), never by a relative path into its src/: the entry is the lib's public face, and a relative path hides the dependency. The exception is code a PDF pool worker loads (libs/pdf, libs/evidence, bulk send's table parser): a worker thread resolves no @dojang/* alias, so that code alone reaches other libs by relative path. Tests may borrow fixtures by path.",
      severity: 'error',
      from: { path: '^libs/([^/]+)/', pathNot: [TEST_CODE, '^libs/(pdf|evidence)/src/', TABLE_PARSER] },
      to: { path: '^libs/', pathNot: '^libs/$1/', dependencyTypes: ['local'], dependencyTypesNot: ['aliased-tsconfig'] },
    },
    {
      name: 'table-parsing-runs-in-the-pool',
      comment:
        "Bulk send's table parser (csv-parse, exceljs) is loaded only by the PDF pool's table.parse handler and the job's types: the API reads an upload through DocumentPdfService.parseTable, never by calling the parser on its event loop (the parser's main-thread guard refuses that at run time too). Tests may call it directly.",
      severity: 'error',
      from: { pathNot: [TEST_CODE, '^libs/pdf/src/pool/(parse-table\\.handler|pdf-jobs)\\.ts$'] },
      to: { path: TABLE_PARSER },
    },
    {
      name: 'table-parser-stands-alone',
      comment:
        'The table parser runs in a pool worker, which loads what it imports: its npm packages and the main-thread guard of libs/pdf, no application code.',
      severity: 'error',
      from: { path: TABLE_PARSER },
      to: { path: '^(libs|apps)/', pathNot: [TABLE_PARSER, '^libs/pdf/src/main-thread-guard\\.ts$'] },
    },
    {
      name: 'postgres-pool-stands-alone',
      comment: 'libs/postgres (pool, migrations) is a driver helper for the PostgreSQL adapters: pg only.',
      severity: 'error',
      from: { path: '^libs/postgres/' },
      to: { path: '^(libs|apps)/', pathNot: '^libs/postgres/' },
    },
    {
      name: 'sqlite-helpers-stand-alone',
      comment: 'libs/sqlite (the lock-wait rule) is a driver helper for the SQLite adapters: no other lib.',
      severity: 'error',
      from: { path: '^libs/sqlite/' },
      to: { path: '^(libs|apps)/', pathNot: '^libs/sqlite/' },
    },
    {
      name: 'projections-see-domain-and-ports',
      comment: 'libs/projections imports the domain and the store ports (package roots), never a backend or another layer.',
      severity: 'error',
      from: { path: '^libs/projections/', pathNot: TEST_CODE },
      to: {
        path: '^(libs|apps)/',
        pathNot: ['^libs/(domain|projections)/', `^libs/${STORES}/src/(index|[^/]+\\.port|hash-chain)\\.ts$`],
      },
    },
    {
      name: 'projections-load-no-driver',
      comment: 'Projections are pure: no database driver.',
      severity: 'error',
      from: { path: '^libs/projections/', pathNot: TEST_CODE },
      to: { path: DRIVERS },
    },
    {
      name: 'backends-chosen-in-one-place',
      comment:
        'Only the composition root (libs/application/src/runtime/stores/) picks a backend, so a process loads only the drivers it uses.',
      severity: 'error',
      from: { path: '^libs/', pathNot: [TEST_CODE, '^libs/application/src/runtime/stores/', `^libs/${STORES}/`] },
      to: { path: BACKEND },
    },
    {
      name: 'libs-without-nest',
      comment: 'Nest is the shell: no lib (application included) imports it.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: NEST },
    },
    {
      name: 'libs-do-not-import-shells',
      comment: 'Libraries never reach into apps/, test/ or bench/.',
      severity: 'error',
      from: { path: '^libs/', pathNot: TEST_CODE },
      to: { path: '^(apps|test|bench)/' },
    },
    {
      name: 'one-write-path',
      comment:
        'Every command goes through the one entry (libs/application/src/commands/command-entry.ts: span, decide, append, read-your-writes wait when asked); controllers reach it through DecideCommand. Only the entry may import the handler it wraps, so nothing can call GenericCommandHandler.execute/executeFrom around it. Tests may drive the handler itself. Callers name the write side\'s types through command-context.ts.',
      severity: 'error',
      from: { pathNot: [TEST_CODE, '^libs/application/src/commands/command-entry\\.ts$'] },
      to: { path: '^libs/application/src/commands/command-handler\\.ts$' },
    },
    {
      name: 'verifier-offline',
      comment:
        "libs/verifier runs on an auditor's machine with only the bundle: Node built-ins, fflate, pkijs/asn1js, the frozen hash-chain function and the one masking rule for personal data (domain personal-data.ts, which imports nothing), so a masked bundle is checked by the function that masked it.",
      severity: 'error',
      from: { path: '^libs/verifier/', pathNot: TEST_CODE },
      to: {
        pathNot: ['^libs/verifier/', '^libs/event-store/src/hash-chain\\.ts$', '^libs/domain/src/shared/personal-data\\.ts$', 'node_modules/(fflate|pkijs|asn1js)/'],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'client-stands-alone',
      comment: 'libs/client is what integrators import: its generated types and openapi-fetch, no server code and no Node built-in (it runs in browsers too). Its build script (build-client.js, run by npm pack) is not shipped code.',
      severity: 'error',
      from: { path: '^libs/client/', pathNot: `${TEST_CODE}|^libs/client/build-client\\.js$` },
      to: { pathNot: ['^libs/client/', 'node_modules/openapi-fetch/'] },
    },
    {
      name: 'integrator-example-uses-the-client',
      comment: 'examples/integrator is an integrator\'s program: it reaches the API through @dojang/client only, never the server\'s code.',
      severity: 'error',
      from: { path: '^examples/integrator/', pathNot: TEST_CODE },
      to: { path: '^(libs|apps|test|bench|scripts|examples)/', pathNot: ['^libs/client/', '^examples/integrator/'] },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes load order matter (undefined at import time) and layers meaningless.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing fails at run time, as the boot crash did.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|coverage|data|node_modules|\\.tmp)/|^apps/api/assets/|^libs/client/dist/' },
    // Type-only imports count: the domain must not even name a database type.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: require('path').join(__dirname, 'tsconfig.json') },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
