import * as ExcelJS from 'exceljs';
import * as iconv from 'iconv-lite';
import { DocumentPdfService } from '@dojang/application';
import { MainThreadPdfWorkError, pdfWorkRefusedOnMainThread, PARSE_TABLE } from '@dojang/pdf';
import { parseCsvTable, parseXlsxTable } from '@dojang/application/bulk-send/parse-table';
import { BULK_SENDS } from '@dojang/projections';
import { Client, client, expectError, expectStatus } from '../support/api-helpers';
import { employeeTemplate } from '../support/lifecycle';
import { bearer, TestOrg, useTestApp } from '../support/test-app';

/**
 * Bulk send from a template (issue 23 item 1): a CSV of 15 rows with 3 bad ones (refused whole,
 * reported by a dry run, then sent with the bad rows skipped), EUC-KR, XLSX-less column errors,
 * JSON rows, progress, rows, and the job's documents reminded and canceled in bulk.
 */
describe('bulk sends', () => {
  const t = useTestApp();
  let org: TestOrg;
  let c: Client;
  let template: { id: string; fields: { id: string }[] };
  beforeAll(async () => {
    org = await t.createOrg('주식회사 도장');
    c = client(t, org.test);
    template = expectStatus(
      await c.post('/templates', {
        name: '근로계약서',
        content: '<p>{{employee_name}}님의 근로계약서</p>',
        roles: [{ role: 'employee', participant_role: 'signer', auth: 'sms_pin' }],
        fields: [
          { role: 'employee', type: 'signature', page: 1, x: 10, y: 80, width: 30, height: 8 },
          { role: 'employee', type: 'text', label: '부서', page: 1, x: 10, y: 60, width: 40, height: 5, required: false },
        ],
      }),
      201,
    ).body;
  });

  const upload = (query: string, bytes: Buffer, filename = 'rows.csv') =>
    t.http.post(`/v1/bulk_sends/upload?template_id=${template.id}${query}`).set(bearer(org.test)).attach('file', bytes, { filename, contentType: 'text/csv' });

  /** Waits for the worker (it runs in the background) to finish the job. */
  async function finished(id: string) {
    for (let i = 0; i < 600; i++) {
      await t.worker!.runner.catchUp();
      const job = expectStatus(await c.get(`/bulk_sends/${id}`), 200).body;
      if (job.status !== 'running') return job;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the bulk send did not finish');
  }

  function csv15(): string {
    const lines = ['employee.name,employee.phone,variables.employee_name,values.' + template.fields[1].id + ',metadata.team,external_id'];
    for (let i = 1; i <= 15; i++) {
      const phone = i === 5 ? '12345' : `010-2000-${String(i).padStart(4, '0')}`;
      const name = i === 12 ? '' : `직원${i}`;
      const external = i === 14 ? 'E-13' : `E-${i}`;
      lines.push(`${name},${phone},"직원${i}, 신입",개발팀,team-${i % 3},${external}`);
    }
    return lines.join('\r\n');
  }

  it('refuses a CSV with bad rows before anything is sent, naming the first row and column', async () => {
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv15())]);
    const err = expectError(await upload('', bom), 400, 'bulk_send_invalid_rows', 'rows[5].employee.phone');
    expect(String(err.message)).toMatch(/3 problems/);
    // Nothing was recorded: no job exists for the organization.
    expect(await t.infra.reads.find(BULK_SENDS, { where: { organization_id: org.id } })).toEqual([]);
  });

  it('dry_run reports every bad row by row and column, and records nothing', async () => {
    const report = expectStatus(await upload('&dry_run=true', Buffer.from(csv15())), 200).body;
    expect(report).toMatchObject({ object: 'bulk_send_validation', row_count: 15, valid_rows: 12, template_version: 1 });
    expect(report.errors.map((e: any) => [e.row, e.column, e.code])).toEqual([
      [5, 'employee.phone', 'phone_invalid'],
      [12, 'employee.name', 'missing_parameter'],
      [14, 'external_id', 'invalid_parameter'],
    ]);
  });

  it('with skip_invalid_rows sends the 12 good rows and records the 3 bad ones as failed', async () => {
    const job = expectStatus(await upload('&skip_invalid_rows=true', Buffer.from(csv15())), 200).body;
    expect(job).toMatchObject({ object: 'bulk_send', row_count: 15, template_id: template.id, template_version: 1 });
    expect(job.counts.failed).toBe(3);
    const done = await finished(job.id);
    expect(done).toMatchObject({ status: 'completed', counts: { pending: 0, sent: 12, failed: 3, canceled: 0 } });

    const rows = expectStatus(await c.get(`/bulk_sends/${job.id}/rows?limit=100`), 200).body.data;
    expect(rows).toHaveLength(15);
    const failed = rows.filter((r: any) => r.state === 'failed');
    expect(failed.map((r: any) => [r.row, r.error.column])).toEqual([
      [5, 'employee.phone'],
      [12, 'employee.name'],
      [14, 'external_id'],
    ]);
    const sent = rows.filter((r: any) => r.state === 'sent');
    expect(new Set(sent.map((r: any) => r.document_id)).size).toBe(12);
    const doc = expectStatus(await c.get(`/documents/${sent[0].document_id}`), 200).body;
    expect(doc).toMatchObject({ status: 'sent', from_template: template.id, template_version: 1, metadata: { team: 'team-1' } });
    expect(doc.participants[0]).toMatchObject({ name: '직원1', phone: '01020000001', auth: 'sms_pin' });
    expect(doc.content).toContain('직원1, 신입');
    expect(doc.fields[1]).toMatchObject({ label: '부서', value: '개발팀' });
    // Paging by row number.
    const page = expectStatus(await c.get(`/bulk_sends/${job.id}/rows?limit=10&starting_after=10`), 200).body;
    expect(page.data.map((r: any) => r.row)).toEqual([11, 12, 13, 14, 15]);
    expect(page.has_more).toBe(false);

    // Every sent row's signing request went out once.
    await t.worker!.runner.catchUp();
    const outbox = expectStatus(await c.get('/outbox?limit=100'), 200).body.data.filter((m: any) => m.kind === 'signing_request' && sent.some((r: any) => r.document_id === m.document_id));
    expect(outbox).toHaveLength(12);

    // The job's documents, in bulk: reminded (within the cooldown of the first request: skipped or sent), then canceled.
    const remind = expectStatus(await c.post(`/bulk_sends/${job.id}/documents/remind`), 200).body;
    expect(remind.succeeded + remind.skipped).toBe(12);
    const canceled = expectStatus(await c.post(`/bulk_sends/${job.id}/documents/cancel`), 200).body;
    expect(canceled).toEqual({ object: 'bulk_send_documents_result', action: 'cancel', succeeded: 12, skipped: 0 });
    expect(expectStatus(await c.get(`/documents/${sent[0].document_id}`), 200).body.status).toBe('canceled');
    // A completed job has no rows left to cancel.
    expectError(await c.post(`/bulk_sends/${job.id}/cancel`), 409, 'bulk_send_not_running');
  });

  it('reads an EUC-KR CSV (what Excel in Korea saves)', async () => {
    const text = 'employee.name,employee.phone,variables.employee_name\r\n김지원,010-3000-0001,김지원\r\n이서준,010-3000-0002,이서준\r\n';
    const job = expectStatus(await upload('', iconv.encode(text, 'euc-kr')), 200).body;
    await finished(job.id);
    const rows = expectStatus(await c.get(`/bulk_sends/${job.id}/rows`), 200).body.data;
    const doc = expectStatus(await c.get(`/documents/${rows[1].document_id}`), 200).body;
    expect(doc.participants[0].name).toBe('이서준');
  });

  it('refuses a bad header or a wrong column with 400 naming the column; an oversized upload with 413', async () => {
    expectError(await upload('', Buffer.from('employee.name,employee.fax\r\n홍,1\r\n')), 400, 'bulk_send_invalid_rows', 'employee.fax');
    expectError(await upload('', Buffer.from('employee.name,employee.name\r\n홍,홍\r\n')), 400, 'bulk_send_invalid_rows', 'employee.name');
    expectError(await upload('', Buffer.from('employee.name,employee.phone\r\n"홍,010\r\n')), 400, 'bulk_send_invalid_rows');
    expectError(await upload('', Buffer.alloc(10 * 1024 * 1024 + 100, 0x61)), 413, 'file_too_large');
  });

  it('rows that differ (issue 32 items 3, 6): a title column or the job\'s title filled from the row, plain columns kept as metadata, the external id on the document; the dry run warns of a shared phone with both rows', async () => {
    const rows = [
      'employee.이름,employee.휴대폰,variables.employee_name,사번,제목,external_id',
      '김지원,010-3000-0001,김지원,E-0001,김지원 근로계약서,HR-1',
      '이서연,010-3000-0002,이서연,E-0002,,HR-2',
      '박민준,01030000001,박민준,E-0003,박민준 근로계약서,HR-3',
    ].join('\r\n');
    const title = '&title=' + encodeURIComponent('{{employee_name}}님 계약서');
    const dry = expectStatus(await upload('&dry_run=true' + title, Buffer.from(rows)), 200).body;
    expect(dry).toMatchObject({ row_count: 3, valid_rows: 3, errors: [] });
    // Row 3's phone is row 1's written another way: sent, but reported with both rows.
    expect(dry.warnings).toEqual([{ row: 3, column: 'employee.phone', code: 'duplicate_recipient', rows: [1, 3], message: expect.stringContaining('row 1') }]);
    // A title whose variable no row gives: refused for the row, in the dry run as in the job.
    const bad = expectStatus(await upload('&dry_run=true&title=' + encodeURIComponent('{{department}} 계약서'), Buffer.from(rows)), 200).body;
    expect(bad.errors.map((e: any) => [e.row, e.column, e.code])).toEqual([[2, 'title', 'missing_parameter']]);

    const job = expectStatus(await upload(title, Buffer.from(rows)), 200).body;
    expect(await finished(job.id)).toMatchObject({ status: 'completed', counts: { sent: 3, failed: 0 } });
    const sent = expectStatus(await c.get(`/bulk_sends/${job.id}/rows`), 200).body.data;
    const docs = await Promise.all(sent.map(async (r: any) => expectStatus(await c.get(`/documents/${r.document_id}`), 200).body));
    expect(docs.map((d: any) => [d.title, d.external_id, d.metadata])).toEqual([
      ['김지원 근로계약서', 'HR-1', { 사번: 'E-0001' }],
      ['이서연님 계약서', 'HR-2', { 사번: 'E-0002' }],
      ['박민준 근로계약서', 'HR-3', { 사번: 'E-0003' }],
    ]);
    expect(expectStatus(await c.get('/documents?external_id=HR-3'), 200).body.data.map((d: any) => d.id)).toEqual([docs[2].id]);
    expect(expectStatus(await c.get(`/documents?metadata[${encodeURIComponent('사번')}]=E-0002`), 200).body.data.map((d: any) => d.id)).toEqual([docs[1].id]);
    expectError(await c.get('/documents?metadata[a]=1&metadata[b]=2'), 400, 'invalid_parameter', 'metadata');
  });

  it('the dry run warns of rows sharing an e-mail, however it is cased, with both row numbers (issue 32 item 6)', async () => {
    const row = (n: number, email: string) => ({ roles: { employee: { name: `직원${n}`, phone: `010-3100-000${n}`, email } }, variables: { employee_name: `직원${n}` } });
    const dry = expectStatus(await c.post('/bulk_sends', { template_id: template.id, dry_run: true, rows: [row(1, 'kim@example.com'), row(2, 'lee@example.com'), row(3, 'Kim@Example.COM')] }), 200).body;
    expect(dry).toMatchObject({ row_count: 3, valid_rows: 3, errors: [] });
    expect(dry.warnings).toEqual([{ row: 3, column: 'employee.email', code: 'duplicate_recipient', rows: [1, 3], message: expect.stringContaining('row 1') }]);
  });

  it('the dry run lays out every row as the job does (issue 32 item 2): a row whose text leaves a field past its last page is reported there, and only that row fails in the job', async () => {
    // The template's own render (placeholders as written: 1,500 "{{본문}}") runs to a second page,
    // so a field there is saved; a row whose 본문 is empty is one page, and its field has no page.
    const tmpl = expectStatus(
      await c.post('/templates', {
        name: '긴 계약서',
        content: `<h2>계약서</h2><p>${'{{본문}} '.repeat(1500)}</p>`,
        roles: [{ role: 'employee', auth: 'none' }],
        fields: [{ role: 'employee', type: 'signature', page: 2, x: 10, y: 80, width: 30, height: 8 }],
      }),
      201,
    ).body;
    const row = (n: number, 본문: string) => ({ roles: { employee: { name: `직원${n}`, email: `layout${n}@example.com` } }, variables: { 본문 }, external_id: `L-${n}` });
    const rows = [row(1, '근로조건'), row(2, '')];
    const dry = expectStatus(await c.post('/bulk_sends', { template_id: tmpl.id, dry_run: true, rows }), 200).body;
    expect(dry).toMatchObject({ row_count: 2, valid_rows: 1 });
    expect(dry.errors.map((e: any) => [e.row, e.column, e.code])).toEqual([[2, 'fields[0].page', 'field_page_out_of_range']]);
    // Said for a row, which has no document to PUT fields to: the template's field, and what to change.
    expect(dry.errors[0].message).toContain(`PATCH /v1/templates/${tmpl.id}`);
    expect(dry.errors[0].message).not.toContain('PUT /v1/documents');
    // The job (its start reads the rows without laying them out) refuses the same row for the same reason when its worker lays it out.
    const job = expectStatus(await c.post('/bulk_sends', { template_id: tmpl.id, rows }), 200).body;
    expect(await finished(job.id)).toMatchObject({ status: 'completed', counts: { sent: 1, failed: 1 } });
    const done = expectStatus(await c.get(`/bulk_sends/${job.id}/rows`), 200).body.data;
    expect(done.map((r: any) => [r.row, r.state, r.error?.code ?? null])).toEqual([
      [1, 'sent', null],
      [2, 'failed', 'field_page_out_of_range'],
    ]);
    expect(done[1].error).toEqual({ code: 'field_page_out_of_range', column: 'fields[0].page', message: dry.errors[0].message });
  });

  it('takes JSON rows; a row not filling the template\'s roles is 400', async () => {
    const job = expectStatus(await c.post('/bulk_sends', { template_id: template.id, rows: [{ roles: { employee: { name: '박하늘', phone: '010-4000-0001' } }, variables: { employee_name: '박하늘' }, external_id: 'J-1' }] }), 200).body;
    const done = await finished(job.id);
    expect(done.counts).toEqual({ pending: 0, sent: 1, failed: 0, canceled: 0 });
    expectError(await c.post('/bulk_sends', { template_id: template.id, rows: [{ roles: {}, variables: { employee_name: 'x' } }] }), 400, 'bulk_send_invalid_rows', 'rows[1].employee');
    expectError(await c.get('/bulk_sends/bulk_000000000000000000000000'), 404, 'bulk_send_not_found');
    const other = client(t, (await t.createOrg('다른 회사')).test);
    expectError(await other.get(`/bulk_sends/${job.id}`), 404, 'bulk_send_not_found');
  });

  it('a live job needs a free signature or a credit for every valid row, checked before anything is recorded (402)', async () => {
    const live = client(t, (await t.createOrg('팀 회사', 'team')).live);
    const tmpl = await employeeTemplate(live, { name: '동의서' });
    const rows = [1, 2].map((n) => ({ roles: { employee: { name: `직원${n}`, email: `e${n}@example.com` } }, variables: { name: `직원${n}` } }));
    expectError(await live.post('/bulk_sends', { template_id: tmpl.id, rows }), 402, 'insufficient_credits');
    // A dry run still reports (it sends nothing).
    expect(expectStatus(await live.post('/bulk_sends', { template_id: tmpl.id, rows, dry_run: true }), 200).body).toMatchObject({ valid_rows: 2, errors: [] });
  });

  it('reads an XLSX (its first sheet), reporting a bad cell by row and column', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('입사자');
    sheet.addRow(['employee.name', 'employee.phone', 'variables.employee_name', 'external_id']);
    sheet.addRow(['한지민', '010-6000-0001', '한지민', 'X-1']);
    sheet.addRow(['오세훈', '없음', '오세훈', 'X-2']);
    const bytes = Buffer.from(await workbook.xlsx.writeBuffer());
    const report = expectStatus(await upload('&dry_run=true', bytes, 'hires.xlsx'), 200).body;
    expect(report).toMatchObject({ row_count: 2, valid_rows: 1 });
    expect(report.errors.map((e: any) => [e.row, e.column])).toEqual([[2, 'employee.phone']]);
  });

  it('parses an uploaded CSV and XLSX in the PDF pool, never on the API thread: the API thread only checks the rows', async () => {
    const pool = t.app.get(DocumentPdfService).pool;
    const parsed = () => pool.stats()[PARSE_TABLE.id]?.jobs ?? 0;
    const before = parsed();
    expectStatus(await upload('&dry_run=true', Buffer.from(csv15())), 200);
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('입사자').addRow(['employee.name', 'employee.phone', 'variables.employee_name']);
    workbook.worksheets[0].addRow(['한지민', '010-6000-0001', '한지민']);
    expectStatus(await upload('&dry_run=true', Buffer.from(await workbook.xlsx.writeBuffer()), 'hires.xlsx'), 200);
    expect(parsed()).toBe(before + 2);
    expect(pdfWorkRefusedOnMainThread()).toEqual([]);
    // The parsers refuse the API's thread outright (this process serves requests).
    expect(() => parseCsvTable('a,b\n1,2')).toThrow(MainThreadPdfWorkError);
    await expect(parseXlsxTable(Buffer.from(await workbook.xlsx.writeBuffer()))).rejects.toThrow(MainThreadPdfWorkError);
  });

  it('refuses a file over the row limit from the pool, before reading the rest', async () => {
    const lines = ['employee.name,employee.phone,variables.employee_name'];
    for (let i = 0; i < 10_001; i++) lines.push(`직원,010-2000-0001,직원`);
    const err = expectError(await upload('&dry_run=true', Buffer.from(lines.join('\n'))), 400, 'bulk_send_invalid_rows');
    expect(String(err.message)).toMatch(/at most 10000 rows|10,000|10000/);
  });
});
