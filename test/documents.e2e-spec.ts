import { bearer, TestOrg, useTestApp } from './support/test-app';

describe('documents (smoke)', () => {
  const t = useTestApp();
  let org: TestOrg;
  beforeAll(async () => {
    org = await t.createOrg();
  });

  it('creates a draft and reads it back at once', async () => {
    const created = await t.http.post('/v1/documents').set(bearer(org.test)).send({ title: '근로계약서', content: '<p>본문</p>' }).expect(201);
    expect(created.body).toMatchObject({ object: 'document', status: 'draft', title: '근로계약서' });
    const read = await t.http.get(`/v1/documents/${created.body.id}`).set(bearer(org.test)).expect(200);
    expect(read.body.id).toBe(created.body.id);
  });
});
