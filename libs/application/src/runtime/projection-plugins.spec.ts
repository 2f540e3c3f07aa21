import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ALL_PROJECTIONS } from '@dojang/projections';
import { findPluginEndpoint, loadProjectionPlugins, ProjectionPluginError } from './projection-plugins';

/** Plugin modules as an operator writes them: plain CommonJS files on disk, named in PROJECTIONS. */
describe('loadProjectionPlugins', () => {
  let dir: string;
  const write = (name: string, body: string) => fs.writeFileSync(path.join(dir, name), body);
  const load = (...entries: string[]) => loadProjectionPlugins({ projections: entries }, ALL_PROJECTIONS, dir);
  const projection = (over = '') =>
    `{ name: 'report_x', version: 1, collections: [{ name: 'report_x_rows', indexes: [['organization_id']] }], handles: new Set(['DocumentSent']),
       keys: (e) => [{ collection: 'report_x_rows', id: e.stream_id }], evolve: () => [] ${over} }`;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dojang-plugins-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('no PROJECTIONS: the built-ins alone', () => {
    expect(load()).toEqual(ALL_PROJECTIONS);
  });

  it('appends a default export, resolved from the working directory', () => {
    write('a.js', `module.exports = { default: ${projection()} };`);
    const all = load('./a.js');
    expect(all.slice(0, ALL_PROJECTIONS.length)).toEqual(ALL_PROJECTIONS);
    expect(all.map((p) => p.name).slice(ALL_PROJECTIONS.length)).toEqual(['report_x']);
  });

  it('takes a named `projections` array, from several modules', () => {
    write('a.js', `module.exports = { projections: [${projection()}, ${projection().replace(/report_x/g, 'report_y')}] };`);
    write('b.js', `module.exports = { default: ${projection().replace(/report_x/g, 'report_z')} };`);
    expect(load('a.js', 'b.js').map((p) => p.name).slice(ALL_PROJECTIONS.length)).toEqual(['report_x', 'report_y', 'report_z']);
  });

  it('a missing module names the entry and where it looked', () => {
    expect(() => load('./nope.js')).toThrow(`PROJECTIONS: cannot find ./nope.js (resolved to ${path.join(dir, 'nope.js')})`);
  });

  it('a module that exports nothing usable shows a sample of the expected shape', () => {
    write('empty.js', 'module.exports = { something: 1 };');
    expect(() => load('empty.js')).toThrow(/empty\.js exports no projection; expected a module exporting Projection objects[\s\S]*version: 1/);
  });

  it.each([
    ['without a version', projection().replace('version: 1,', ''), 'version must be an integer ≥ 1'],
    ['with handles as an array', projection().replace("new Set(['DocumentSent'])", "['DocumentSent']"), 'handles must be a Set of event type names'],
    ['without evolve', projection().replace('evolve: () => []', 'evolve: 1'), 'evolve must be a function'],
    ['without keys', projection().replace(/keys: \(e\) => \[[^\]]*\],/, ''), 'keys must be a function'],
    ['with a name that is not snake_case', projection().replace("name: 'report_x'", "name: 'Report X'"), 'name must be lower_snake_case'],
    // 61 characters: SQLite and MongoDB took it, PostgreSQL refused it only once the plugin ran there.
    ['with a collection name too long for every store', projection().replace("name: 'report_x_rows'", `name: 'report_${'x'.repeat(54)}'`), 'must be lower_snake_case (a-z, 0-9, _; up to 60 characters'],
    ['without collections', projection().replace("collections: [{ name: 'report_x_rows', indexes: [['organization_id']] }],", 'collections: [],'), 'collections must be a non-empty array'],
  ])('refuses a projection %s, naming the file and the field', (_what, body, message) => {
    write('bad.js', `module.exports = { default: ${body} };`);
    expect(() => load('bad.js')).toThrow(ProjectionPluginError);
    expect(() => load('bad.js')).toThrow(new RegExp(`PROJECTIONS: bad\\.js: .*${message.replace(/[()[\]]/g, '\\$&')}[\\s\\S]*export default`));
  });

  it('takes declared read endpoints and finds them by projection and name, plugins only', () => {
    write('e.js', `module.exports = { default: ${projection(", endpoints: [{ name: 'rows', collection: 'report_x_rows', filters: ['month'] }]")} };`);
    const all = load('./e.js');
    expect(findPluginEndpoint(all, 'report_x', 'rows')).toEqual({ name: 'rows', collection: 'report_x_rows', filters: ['month'] });
    expect(findPluginEndpoint(all, 'report_x', 'other')).toBeNull();
    expect(findPluginEndpoint(all, 'documents', 'documents')).toBeNull();
  });

  it.each([
    ['not an array', "endpoints: { name: 'rows' }", /endpoints must be an array/],
    ['a bad name', "endpoints: [{ name: 'Rows', collection: 'report_x_rows' }]", /endpoint "Rows": name must be lower_snake_case/],
    ['the same name twice', "endpoints: [{ name: 'rows', collection: 'report_x_rows' }, { name: 'rows', collection: 'report_x_rows' }]", /endpoint "rows": declared twice/],
    ["another projection's collection", "endpoints: [{ name: 'rows', collection: 'documents' }]", /collection must be one of this projection's collections \(report_x_rows\)/],
    ['a filter named like a paging parameter', "endpoints: [{ name: 'rows', collection: 'report_x_rows', filters: ['limit'] }]", /filters must be top-level field names/],
    ['a filter on the scope', "endpoints: [{ name: 'rows', collection: 'report_x_rows', filters: ['organization_id'] }]", /filters must be top-level field names/],
  ])('refuses endpoints with %s, naming the module and the field', (_what, over, message) => {
    write('bad.js', `module.exports = { default: ${projection(`, ${over}`)} };`);
    expect(() => load('./bad.js')).toThrow(message);
    expect(() => load('./bad.js')).toThrow(/PROJECTIONS: \.\/bad\.js/);
  });

  it('refuses a projection name already used by a built-in', () => {
    write('dup.js', `module.exports = { default: ${projection().replace("name: 'report_x'", "name: 'documents'")} };`);
    expect(() => load('dup.js')).toThrow('PROJECTIONS: used twice (built-in or plugin): projection documents');
  });

  it('refuses a collection already used by a built-in or another plugin', () => {
    write('a.js', `module.exports = { default: ${projection().replace(/report_x_rows/g, 'audit_entries')} };`);
    expect(() => load('a.js')).toThrow('used twice (built-in or plugin): collection audit_entries');
    write('b.js', `module.exports = { default: ${projection()} };`);
    write('c.js', `module.exports = { default: ${projection().replace("name: 'report_x'", "name: 'report_c'")} };`);
    expect(() => load('b.js', 'c.js')).toThrow('used twice (built-in or plugin): collection report_x_rows');
  });

  it("refuses Dojang's own bookkeeping collections (a rebuild would empty them)", () => {
    write('a.js', `module.exports = { default: ${projection().replace(/report_x_rows/g, 'outbox')} };`);
    expect(() => load('a.js')).toThrow("collection name(s) reserved for Dojang's own bookkeeping: outbox");
  });

  it('a module that throws while loading says which one', () => {
    write('throws.js', "throw new Error('no config');");
    expect(() => load('throws.js')).toThrow('PROJECTIONS: loading throws.js failed: no config');
  });
});
