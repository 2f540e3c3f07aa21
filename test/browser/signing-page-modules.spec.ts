import * as fs from 'fs';
import * as path from 'path';
import { SIGNING_PAGE_DIR } from '../../apps/api/src/signing/signing-page.http.controller';

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

  it('are all preloaded by index.html; early-session.js, then main.js, are the entry modules', () => {
    const html = fs.readFileSync(path.join(SIGNING_PAGE_DIR, 'index.html'), 'utf8');
    const preloaded = [...html.matchAll(/<link rel="modulepreload" href="\/sign\/assets\/([\w.-]+)">/g)].map((m) => m[1]);
    const entries = [...html.matchAll(/<script type="module" src="\/sign\/assets\/([\w.-]+)"><\/script>/g)].map((m) => m[1]);
    expect([...preloaded, ...entries].sort()).toEqual([...modules].sort());
    // The session request starts when early-session.js runs: first, and it must import nothing
    // (an import would make it wait for that module's download).
    expect(entries).toEqual(['early-session.js', 'main.js']);
    expect(html.indexOf('early-session.js')).toBeLessThan(html.indexOf('rel="modulepreload"'));
    expect(source('early-session.js')).not.toMatch(/^import /m);
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
