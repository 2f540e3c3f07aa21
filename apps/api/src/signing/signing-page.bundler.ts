import * as fs from 'fs';
import * as path from 'path';

const IMPORT = /^import \{([^}]*)\} from '\.\/([a-z0-9-]+\.js)';[ \t]*$/gm;

/**
 * The signing page's modules as one script, made at startup from the files themselves (no build
 * step, nothing written to disk). On a phone's HTTP/1.1 link (six connections per origin, 150 ms
 * round trips) the 15 modules went in waves, one request per connection at a time, before page 1
 * could show; one file is one request.
 *
 * Plain concatenation is exact here because the modules keep two rules that a test checks
 * (test/browser/signing-page-modules.spec.ts): every import is `import { a, b } from './x.js';`
 * and every export `export function` or `export var`, and no two modules declare the same
 * top-level name. So the import lines go, `export ` goes, and the modules follow one another in
 * the order a browser evaluates them (depth first, in import order, each once): one module
 * scope with the same bindings. Imports of an `external` module (early-session.js, its own entry
 * module so that it runs before this file has arrived) stay as imports, at the top.
 */
export function bundleModules(dir: string, entry: string, external: readonly string[] = []): string {
  const order: string[] = [];
  const seen = new Set<string>();
  const kept = new Map<string, Set<string>>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const source = fs.readFileSync(path.join(dir, name), 'utf8');
    for (const m of source.matchAll(IMPORT)) {
      if (external.includes(m[2])) {
        const names = kept.get(m[2]) ?? new Set<string>();
        for (const n of m[1].split(',').map((s) => s.trim()).filter(Boolean)) names.add(n);
        kept.set(m[2], names);
      } else {
        visit(m[2]);
      }
    }
    order.push(name);
  };
  visit(entry);
  const imports = [...kept].map(([file, names]) => `import { ${[...names].join(', ')} } from './${file}';\n`).join('');
  const exported: string[] = [];
  const bodies = order.map((name) => {
    const source = fs.readFileSync(path.join(dir, name), 'utf8');
    for (const m of source.matchAll(/^export (?:function|var) ([A-Za-z_$][\w$]*)/gm)) exported.push(m[1]);
    const body = source.replace(IMPORT, '').replace(/^export (function|var) /gm, '$1 ');
    return `// ---- ${name}\n${body}`;
  });
  // What the modules exported, exported again: `import('/sign/assets/bundle.js')` reaches the
  // instances the page runs (a module's own URL would load a second, idle copy).
  return `${imports}${bodies.join('\n')}\nexport { ${exported.join(', ')} };\n`;
}

/** The names a module declares at its top level (function, var, const, let, class). */
export function topLevelNames(source: string): string[] {
  return [...source.matchAll(/^(?:export )?(?:async )?(?:function\*?|var|const|let|class) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]);
}
