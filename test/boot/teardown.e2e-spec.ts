import { startTestApp } from '../support/test-app';
import { API_TEST_OPTIONS, client, createDoc, expectStatus } from '../support/api-helpers';

/**
 * A closed API leaves nothing that keeps its process alive: jest ended with "a worker process has
 * failed to exit gracefully" because every API a test closed left the PDF pool's workers (their
 * message ports) running. The pool is shared by the APIs of one process and stops with the last.
 */
const ports = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;

describe('closing an API', () => {
  it('stops the PDF workers with the last API of the process, and not before', async () => {
    const before = ports();
    const first = await startTestApp({ ...API_TEST_OPTIONS, worker: false });
    const second = await startTestApp({ ...API_TEST_OPTIONS, worker: false });
    try {
      expect(ports()).toBeGreaterThan(before);
      await first.close();
      // The other API still renders in the same pool.
      const org = await second.createOrg();
      const doc = await createDoc(client(second, org.test));
      expectStatus(await second.http.get(`/v1/documents/${doc.id}/file`).set('Authorization', `Bearer ${org.test}`), 200);
    } finally {
      await second.close();
    }
    expect(ports()).toBe(before);
    // Two APIs and a render on a loaded machine: longer than the default hang guard.
  }, 180_000);
});
