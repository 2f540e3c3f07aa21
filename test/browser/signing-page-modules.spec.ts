import * as fs from 'fs';
import * as path from 'path';
import { BUNDLE, SIGNING_PAGE_DIR } from '../../apps/api/src/signing/signing-page.http.controller';
import { bundleModules, topLevelNames } from '../../apps/api/src/signing/signing-page.bundler';

/**
 * The signing page's ES modules have no build step, so nothing else notices a broken import
 * before a browser does: every name a module imports is exported by the module it names, every
 * module is preloaded by index.html (one round trip instead of a waterfall), and no module keeps
 * the old habits the CSP forbids (innerHTML, eval, inline handlers).
 */
describe('signing page modules', () => {
  const modules = fs.readdirSync(SIGNING_PAGE_DIR).filter((f) => f.endsWith('.js'));
  const source = (f: string) => fs.readFileSync(path.join(SIGNING_PAGE_DIR, f), 'utf8');

  it('import only what the other modules export', () => {
    const exported = new Map(modules.map((f) => [f, new Set([...source(f).matchAll(/export (?:function|var|const|let) ([\w$]+)/g)].map((m) => m[1]))]));
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
    const bundle = bundleModules(SIGNING_PAGE_DIR, 'main.js', ['early-session.js']);
    const bundled = [...bundle.matchAll(/^\/\/ ---- ([\w.-]+)$/gm)].map((m) => m[1]);
    expect([...bundled, 'early-session.js'].sort()).toEqual([...modules].sort());
    expect(bundled[bundled.length - 1]).toBe('main.js');
    expect([...bundle.matchAll(/^import .*$/gm)].map((m) => m[0])).toEqual([expect.stringMatching(/ from '\.\/early-session\.js';$/)]);
    // The modules' exports, once, at the end: what a test reaches with import('/sign/assets/bundle.js').
    expect([...bundle.matchAll(/^export .*$/gm)]).toHaveLength(1);
    expect(bundle).toMatch(/\nexport \{ [^}]*\bsignValues\b[^}]* \};\n$/);
  });

  it('keep what makes their concatenation exact: one-line named imports, function/var exports, no shared top-level name', () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const f of modules) {
      const text = source(f);
      expect({ f, odd: text.match(/^import (?!\{[^}]*\} from '\.\/[a-z0-9-]+\.js';$).*$/gm) }).toEqual({ f, odd: null });
      expect({ f, odd: text.match(/^export (?!function |var ).*$/gm) }).toEqual({ f, odd: null });
      expect({ f, odd: text.match(/\bimport\(|import\.meta/g) }).toEqual({ f, odd: null });
      for (const name of topLevelNames(text)) {
        if (owner.has(name)) clashes.push(`${name}: ${owner.get(name)} and ${f}`);
        owner.set(name, f);
      }
    }
    expect(clashes).toEqual([]);
    expect(owner.size).toBeGreaterThan(50);
  });

  it('write text with textContent only: no innerHTML, eval or string timers', () => {
    for (const f of modules) expect({ f, bad: source(f).match(/innerHTML|outerHTML|insertAdjacentHTML|\beval\(|new Function\(|setTimeout\('/g) }).toEqual({ f, bad: null });
  });

  it('ship in the production image, which serves them from the source tree', () => {
    // The runtime stage copies dist/, node_modules and scripts; without this the page 500s.
    const dockerfile = fs.readFileSync(path.join(__dirname, '../../Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toContain('COPY --from=build /app/apps/api/assets ./apps/api/assets');
  });
});
