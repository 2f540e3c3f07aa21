import { createDojangClient, DojangApiError } from './index';

/** A fetch that records the request and answers with the given JSON. */
function recordingFetch(status: number, body: unknown) {
  const requests: Request[] = [];
  const fetch = async (request: Request) => {
    requests.push(request);
    return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  };
  return { requests, fetch };
}

const DOCUMENT_LIST = { object: 'list', data: [], has_more: false };
const ERROR = { error: { type: 'invalid_request_error', code: 'document_not_found', message: 'No such document.', param: 'id', request_id: 'req_0123456789abcdef01234567' } };

describe('createDojangClient', () => {
  it('sends the API key as a bearer token to paths under the given root', async () => {
    const { requests, fetch } = recordingFetch(200, DOCUMENT_LIST);
    const dojang = createDojangClient({ baseUrl: 'https://dojang.example/v1/', apiKey: 'sk_test_abc', fetch });
    const { data, error } = await dojang.GET('/documents', { params: { query: { limit: 5 } } });
    expect(error).toBeUndefined();
    expect(data).toEqual(DOCUMENT_LIST);
    expect(requests[0].url).toBe('https://dojang.example/v1/documents?limit=5');
    expect(requests[0].headers.get('authorization')).toBe('Bearer sk_test_abc');
  });

  it('sends no Authorization header without a key (the signer\'s side)', async () => {
    const { requests, fetch } = recordingFetch(200, {});
    const signer = createDojangClient({ baseUrl: 'https://dojang.example/v1', fetch, headers: { 'X-Trace': '1' } });
    await signer.POST('/signing/{token}/verify', { params: { path: { token: 'tok_abc' } }, body: { pin: '123456' } });
    expect(requests[0].url).toBe('https://dojang.example/v1/signing/tok_abc/verify');
    expect(requests[0].headers.get('authorization')).toBeNull();
    expect(requests[0].headers.get('x-trace')).toBe('1');
    await expect(requests[0].json()).resolves.toEqual({ pin: '123456' });
  });

  it('hands an error answer over as `error`, which DojangApiError turns into an exception', async () => {
    const { fetch } = recordingFetch(404, ERROR);
    const dojang = createDojangClient({ baseUrl: 'https://dojang.example/v1', apiKey: 'sk_test_abc', fetch });
    const { data, error, response } = await dojang.GET('/documents/{id}', { params: { path: { id: 'nope' } } });
    expect(data).toBeUndefined();
    if (!error) throw new Error('expected an error');
    const thrown = new DojangApiError(error, response);
    expect(thrown).toMatchObject({ name: 'DojangApiError', status: 404, code: 'document_not_found', type: 'invalid_request_error', param: 'id', requestId: ERROR.error.request_id });
    expect(thrown.message).toBe('404 document_not_found: No such document. (req_0123456789abcdef01234567)');
  });
});
