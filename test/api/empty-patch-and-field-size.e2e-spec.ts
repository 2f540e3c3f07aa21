import { API_TEST_OPTIONS, addParticipant, client, Client, createDoc, expectError, expectStatus, field } from '../support/api-helpers';
import { useTestApp } from '../support/test-app';

/**
 * Issue 24 §22: `PATCH /documents/{id}` with `[]` or `{}` answered 200 and appended an empty
 * DocumentUpdated; a field 5e-324 percent wide was accepted and signable (an invisible box).
 * A body that is not an object is refused; an update naming nothing is a no-op without an event;
 * fields are at least 1 percent of the page wide and high.
 */
describe('empty updates and invisible fields', () => {
  const t = useTestApp({ ...API_TEST_OPTIONS, worker: false });
  let c: Client;
  beforeAll(async () => {
    c = client(t, (await t.createOrg()).test);
  });

  const streamTypes = async (id: string) => (await t.infra.events.readStream(`document-${id}`)).map((e) => e.type);

  it('PATCH with an empty object changes nothing and appends nothing', async () => {
    const doc = await createDoc(c);
    const before = await streamTypes(doc.id);
    const res = expectStatus(await c.patch(`/documents/${doc.id}`, {}), 200);
    expect(res.body).toMatchObject({ id: doc.id, title: doc.title, content: doc.content });
    expect(await streamTypes(doc.id)).toEqual(before);
  });

  it('a JSON array where an object belongs is refused with 400 naming the body, on PATCH and POST alike', async () => {
    const doc = await createDoc(c);
    const before = await streamTypes(doc.id);
    const patched = await c.patch(`/documents/${doc.id}`, []);
    const err = expectError(patched, 400, 'invalid_parameter', 'body');
    expect(err.message).toMatch(/JSON object/);
    expect(await streamTypes(doc.id)).toEqual(before);
    expectError(await c.post('/documents', [{ title: 'x', content: 'y' }]), 400, 'invalid_parameter', 'body');
    expectError(await c.put(`/documents/${doc.id}/fields`, []), 400, 'invalid_parameter', 'body');
  });

  it('refuses a field under 1 percent wide or high, naming it', async () => {
    const doc = await createDoc(c);
    const p = await addParticipant(c, doc.id);
    const tiny = await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id, { width: 5e-324 })] });
    expect(expectError(tiny, 400, 'invalid_parameter', 'fields[0].width').message).toMatch(/at least 1 percent/);
    expectError(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id), field(p.id, { height: 0.5 })] }), 400, 'invalid_parameter', 'fields[1].height');
    expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [field(p.id, { width: 1, height: 1 })] }), 200);
  });

  it('documents the minimum in OpenAPI', async () => {
    const doc = expectStatus(await t.http.get('/v1/openapi.json'), 200).body;
    const props = doc.components.schemas.FieldDto.properties;
    expect([props.width.minimum, props.height.minimum]).toEqual([1, 1]);
  });
});
