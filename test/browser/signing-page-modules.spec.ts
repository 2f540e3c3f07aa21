import * as fs from 'fs';
import * as path from 'path';
import { BUNDLE, SIGNING_PAGE_DIR } from '../../apps/api/src/signing/signing-page.http.controller';
import { bundleModules } from '../../apps/api/src/signing/signing-page.bundler';

/**
 * The signing page's ES modules are bundled when the server starts, so nothing else notices a
 * broken import before a browser does: every name a module imports is exported by the module it names, every
 * module is preloaded by index.html (one round trip instead of a waterfall), and no module keeps
 * the old habits the CSP forbids (innerHTML, eval, inline handlers).
 */
describe('signing page modules', () => {
  const modules = fs.readdirSync(SIGNING_PAGE_DIR).filter((f) => f.endsWith('.js'));
  const source = (f: string) => fs.readFileSync(path.join(SIGNING_PAGE_DIR, f), 'utf8');

  it('import only what the other modules export', () => {
    const names = (f: string) => [
      ...[...source(f).matchAll(/export (?:function|var|const|let) ([\w$]+)/g)].map((m) => m[1]),
      // export { a, b } (field-checks.js passes the domain's rules on)
      ...[...source(f).matchAll(/export \{([^}]+)\}/g)].flatMap((m) => m[1].split(',').map((n) => n.trim())),
    ];
    const exported = new Map(modules.map((f) => [f, new Set(names(f))]));
    const broken: string[] = [];
    for (const f of modules) {
      for (const m of source(f).matchAll(/import \{([^}]+)\} from '\.\/([\w.-]+)'/g)) {
        for (const name of m[1].split(',').map((n) => n.trim())) {
          if (!exported.get(m[2])?.has(name)) broken.push(`${f}: ${name} from ${m[2]}`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(modules.length).toBeGreaterThanOrEqual(10);
  });

  it('are loaded by index.html as early-session.js, then one script of main.js and everything it imports', () => {
    const html = fs.readFileSync(path.join(SIGNING_PAGE_DIR, 'index.html'), 'utf8');
    expect(html).not.toContain('modulepreload');
    // The session request starts when early-session.js runs: first, and it imports nothing (an
    // import would make it wait for that module's download).
    expect([...html.matchAll(/<script type="module" src="\/sign\/assets\/([\w.-]+)"><\/script>/g)].map((m) => m[1])).toEqual(['early-session.js', BUNDLE]);
    expect(source('early-session.js')).not.toMatch(/^import /m);
    const { code, modules: bundled } = bundleModules(SIGNING_PAGE_DIR, 'main.js', ['early-session.js']);
    // Every module but early-session.js is in the one script, main.js (the entry) last.
    expect([...bundled, 'early-session.js'].sort()).toEqual([...modules].sort());
    expect(bundled[bundled.length - 1]).toBe('main.js');
    // early-session.js stays an import of its own file (one module instance however often it is named), the only one.
    expect([...new Set(code.match(/\bimport\s*\{[^}]*\}\s*from\s*"([^"]+)"/g)?.map((m) => m.replace(/^[\s\S]*from\s*/, '')))]).toEqual(['"./early-session.js"']);
    // The modules' exports, once, at the end: what a test reaches with import('/sign/assets/bundle.js').
    expect(code.match(/\bexport\s*\{/g)).toHaveLength(1);
    expect(code).toMatch(/export\s*\{[^}]*\bsignValues\b[^}]*\};?\s*$/);
    // Korean strings as they are (charset utf8), not \u escapes: fewer bytes on a phone's link.
    expect(code).toMatch(/[가-힣]/);
  });

  it('write text with textContent only: no innerHTML, eval or string timers', () => {
    for (const f of modules) expect({ f, bad: source(f).match(/innerHTML|outerHTML|insertAdjacentHTML|\beval\(|new Function\(|setTimeout\('/g) }).toEqual({ f, bad: null });
  });

  it('ship in the production image, which serves them from the source tree', () => {
    // The runtime stage copies dist/, node_modules and scripts; without this the page 500s.
    const dockerfile = fs.readFileSync(path.join(__dirname, '../../Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toContain('COPY --from=build /app/apps/api/assets ./apps/api/assets');
    // The domain modules the page bundles in (the field rules) are read at start too: each copied.
    const { shared } = bundleModules(SIGNING_PAGE_DIR, 'main.js', ['early-session.js']);
    expect(shared).toContain('libs/domain/src/document/field-rules.ts');
    for (const file of shared) expect(runtime).toContain(`COPY --from=build /app/${file} ./${file}`);
  });

  it('take the field rules from the domain, with no copy of their own', () => {
    // field-rules.js was a hand-kept restatement of the domain's rules; the page now imports them.
    expect(modules).not.toContain('field-rules.js');
    const { code } = bundleModules(SIGNING_PAGE_DIR, 'main.js', ['early-session.js']);
    expect(code).toMatch(/function checkFieldValue\(/);
    expect(code.match(/function checkFieldValue\(/g)).toHaveLength(1);
    // No module of the page states a rule's limit of its own (the recorded number's form, the initials' length).
    for (const f of modules) expect({ f, own: source(f).match(/\\d\{1,15\}|MAX_INITIALS_LENGTH\s*=/g) }).toEqual({ f, own: null });
  });
});
