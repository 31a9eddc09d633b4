import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { customFormats } from '../../src/shared/formats.js';
import { MAX_ID, wholeNumberText } from '../../src/server/api-docs/parameters.js';
import { mustBe } from '../../src/server/http/route-validation.js';
import { ALICE, dbTargets, useTestServer } from '../helpers/server.js';

/**
 * The routes' schemas are what validates their input (docs/decisions/044): a value the API document
 * forbids is refused with a 400 naming the field and saying what to send, and a value it allows is
 * taken. Each case is checked against the document too, so the two cannot drift.
 */

describe('what a refusal says a value must be', () => {
  it('is the x-message when the schema has one, else words from its keywords', () => {
    expect(mustBe({ type: 'integer', minimum: 1, maximum: 10, 'x-message': 'must be a page', 'x-i18n': { zh: { message: '必须是页码' } } })).toEqual({
      en: 'must be a page',
      zh: '必须是页码',
    });
    expect(mustBe({ type: 'integer', minimum: 1, maximum: 10 }).en).toBe('must be a whole number from 1 to 10');
    expect(mustBe({ type: 'integer', minimum: 1, maximum: 10 }).zh).toBe('必须是 1 到 10 之间的整数');
    expect(mustBe({ type: 'number', minimum: 0 }).en).toBe('must be a number of at least 0');
    expect(mustBe({ type: ['string', 'null'], enum: ['a', 'b', null] }).en).toBe("must be one of: 'a', 'b'");
    expect(mustBe({ type: 'string', maxLength: 200 }).en).toBe('must be text of at most 200 characters');
    expect(mustBe({ type: 'string', minLength: 1 }).en).toBe('must be non-empty text');
    expect(mustBe({ type: 'string', format: 'datetime-text' }).en).toBe('must be a date like 2024-01-31 or a date and time like 2024-01-31 08:30:00');
    expect(mustBe({ type: 'boolean' })).toEqual({ en: 'must be true or false', zh: '必须是 true 或 false' });
  });

  it('says of an id as text exactly what its range says of the number', () => {
    const idText = new RegExp(wholeNumberText(MAX_ID));
    for (const taken of ['1', '9', '10', '999999999', '1000000000', '1999999999', '2099999999', '2147483639', '2147483646', '2147483647']) {
      expect(idText.test(taken), taken).toBe(true);
    }
    for (const refused of ['', '0', '01', '-1', '1.5', ' 1', '2147483648', '2147483650', '2147490000', '2200000000', '9999999999', '10000000000']) {
      expect(idText.test(refused), refused).toBe(false);
    }
    for (const max of [1, 9, 10, 57, 100, 3600]) {
      const text = new RegExp(wholeNumberText(max));
      for (let n = 0; n <= max + 20; n++) expect(text.test(String(n)), `${n} against 1..${max}`).toBe(n >= 1 && n <= max);
    }
  });
});

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      { parameters?: { name: string; in: string; schema: Record<string, unknown> }[]; requestBody?: { content: Record<string, { schema: unknown }> } }
    >
  >;
};

describe.each(dbTargets())('route schemas validate on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let doc: Doc;
  // The document read as a client reads it: parameters are text in the declared type (a path list
  // comma-separated), bodies are JSON.
  const text = new Ajv({ strict: false, coerceTypes: 'array', validateSchema: false });
  const json = new Ajv({ strict: false, validateSchema: false });
  for (const ajv of [text, json]) {
    addFormats.default(ajv);
    for (const [name, check] of Object.entries(customFormats)) ajv.addFormat(name, { type: 'string', validate: check });
  }

  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
    doc = (await s.request('GET', '/api/openapi.json')).body as Doc;
    json.addSchema(doc, 'doc');
  });

  /** Whether the document allows a parameter's value: in 'path' or 'query' of the operation. */
  function documentAllows(path: string, method: string, where: string, name: string, value: string): boolean {
    const param = doc.paths[path]?.[method]?.parameters?.find((p) => p.in === where && p.name === name);
    expect(param, `${method} ${path} ${where} ${name}`).toBeDefined();
    const schema = param?.schema ?? {};
    return text.validate(schema, where === 'path' && schema['type'] === 'array' ? value.split(',') : value);
  }

  /** Whether the document allows a JSON body of the operation. */
  function documentAllowsBody(path: string, method: string, body: unknown): boolean {
    const pointer = `doc#/paths/${path.replaceAll('/', '~1')}/${method}/requestBody/content/application~1json/schema`;
    const validate = json.getSchema(pointer) as ValidateFunction | undefined;
    expect(validate, `${method} ${path}`).toBeDefined();
    return validate?.(body) === true;
  }

  it('refuses record ids, list parameters, versions and keys the document forbids, naming the field', async () => {
    const poi = '/api/vtp/poi';
    const refused: [string, string, string, [string, string, string, string], string][] = [
      ['GET', `${poi}/abc`, "id must be a whole number from 1 to 2147483647, got 'abc'", [`${poi}/{id}`, 'get', 'path', 'abc'], 'id'],
      [
        'GET',
        `${poi}/2147483648/history`,
        "id must be a whole number from 1 to 2147483647, got '2147483648'",
        [`${poi}/{id}/history`, 'get', 'path', '2147483648'],
        'id',
      ],
      ['DELETE', `${poi}/1,2,x`, "every id must be a whole number from 1 to 2147483647, got 'x'", [`${poi}/{id}`, 'delete', 'path', '1,2,x'], 'id'],
      [
        'DELETE',
        `${poi}/${Array.from({ length: 1001 }, (_v, i) => i + 1).join(',')}`,
        'id must be one id or at most 1000 comma-separated ids, got 1001 values',
        [`${poi}/{id}`, 'delete', 'path', Array.from({ length: 1001 }, (_v, i) => i + 1).join(',')],
        'id',
      ],
      [
        'DELETE',
        `${poi}/7?version=v2`,
        "version must be the record version you saw (a whole number), got 'v2'",
        [`${poi}/{id}`, 'delete', 'query', 'v2'],
        'version',
      ],
      [
        'GET',
        `${poi}/list?pageSize=10001`,
        "pageSize must be a whole number from 1 to 10000, got '10001'",
        [`${poi}/list`, 'get', 'query', '10001'],
        'pageSize',
      ],
      [
        'GET',
        `${poi}/list?pageNum=first`,
        "pageNum must be a whole number from 1 to 1000000, got 'first'",
        [`${poi}/list`, 'get', 'query', 'first'],
        'pageNum',
      ],
      ['GET', `${poi}/list?isAsc=up`, 'isAsc must be asc or desc', [`${poi}/list`, 'get', 'query', 'up'], 'isAsc'],
      [
        'GET',
        `${poi}/list?orderByColumn=address`,
        'orderByColumn must be one of the columns POI Records can be sorted by',
        [`${poi}/list`, 'get', 'query', 'address'],
        'orderByColumn',
      ],
      [
        'GET',
        `${poi}/list?params%5BbeginReportTime%5D=2026-02-30`,
        "params[beginReportTime] is not a day of the calendar, got '2026-02-30'",
        [`${poi}/list`, 'get', 'query', '2026-02-30'],
        'params[beginReportTime]',
      ],
      [
        'GET',
        `${poi}/list?title=${'x'.repeat(201)}`,
        'title must be text of at most 200 characters, got 201 characters',
        [`${poi}/list`, 'get', 'query', 'x'.repeat(201)],
        'title',
      ],
      [
        'GET',
        '/api/vtp/stats/day?date=2026-13-01',
        "date must be a day like 2026-11-21 (yyyy-MM-dd), got '2026-13-01'",
        ['/api/vtp/stats/day', 'get', 'query', '2026-13-01'],
        'date',
      ],
      [
        'GET',
        '/api/vtp/issueRecord/aiStatus?id=0',
        "id must be an issue id, a whole number from 1 to 2147483647, got '0'",
        ['/api/vtp/issueRecord/aiStatus', 'get', 'query', '0'],
        'id',
      ],
      [
        'GET',
        `/sharepoint/files?path=${'a/'.repeat(520)}`,
        'path must be text of at most 1024 characters, got 1040 characters',
        ['/sharepoint/files', 'get', 'query', 'a/'.repeat(520)],
        'path',
      ],
    ];
    for (const [method, url, msg, [docPath, docMethod, where, value], name] of refused) {
      const res = await s.request(method, url, { token: alice });
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(res.body.msg, `${method} ${url}`).toContain(msg);
      expect(documentAllows(docPath, docMethod, where, name, value), `the document allows ${name}=${value.slice(0, 40)} of ${docMethod} ${docPath}`).toBe(
        false,
      );
    }
  });

  it('takes what the document allows, read as the declared type', async () => {
    const poi = '/api/vtp/poi';
    const created = await s.request('POST', poi, {
      token: alice,
      body: { title: 'Validated', reportTime: '2026-11-21 08:00:00' },
      headers: { 'idempotency-key': 'route-validation:1' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.data.id as number;
    const taken: [string, string, string, [string, string, string, string, string]?][] = [
      ['GET', `${poi}/${id}`, '200', [`${poi}/{id}`, 'get', 'path', 'id', String(id)]],
      ['GET', `${poi}/2147483647`, '404', [`${poi}/{id}`, 'get', 'path', 'id', '2147483647']],
      ['GET', `${poi}/list?pageNum=0&pageSize=10000&isAsc=DESC&orderByColumn=title,%20id`, '200', [`${poi}/list`, 'get', 'query', 'isAsc', 'DESC']],
      [
        'GET',
        `${poi}/list?pageNum=&title=&params%5BbeginReportTime%5D=2026-11-21T08:00`,
        '200',
        [`${poi}/list`, 'get', 'query', 'params[beginReportTime]', '2026-11-21T08:00'],
      ],
      ['GET', '/api/vtp/stats/days?from=2026-11-01&to=2026-11-21', '200', ['/api/vtp/stats/days', 'get', 'query', 'from', '2026-11-01']],
      ['GET', `/api/vtp/issueRecord/aiStatus?id=${MAX_ID}`, '404', ['/api/vtp/issueRecord/aiStatus', 'get', 'query', 'id', String(MAX_ID)]],
      ['GET', '/sharepoint/files?path=%2Fmedia%2F', '200', ['/sharepoint/files', 'get', 'query', 'path', '/media/']],
    ];
    for (const [method, url, status, documented] of taken) {
      const res = await s.request(method, url, { token: alice });
      expect(String(res.status), `${method} ${url}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(status);
      if (documented !== undefined) {
        const [docPath, docMethod, where, name, value] = documented;
        expect(documentAllows(docPath, docMethod, where, name, value), `${name}=${value}`).toBe(true);
      }
    }
    // The list's page 0 is the first page, and DESC any case.
    const list = await s.request('GET', `${poi}/list?pageNum=0&pageSize=1&isAsc=DESC&orderByColumn=id`, { token: alice });
    expect(list.body.rows.map((r: { id: number }) => r.id)).toEqual([id]);
    // An update names the id and version as numbers or as digits, and If-Match as a version.
    const put = await s.request('PUT', poi, {
      token: alice,
      body: { id: String(id), version: '1', title: 'Validated again' },
      headers: { 'if-match': 'W/"1"' },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(documentAllowsBody(poi, 'put', { id, version: 1, title: 'Validated again' })).toBe(true);
    const badMatch = await s.request('PUT', poi, { token: alice, body: { id, title: 'x' }, headers: { 'if-match': 'latest' } });
    expect(badMatch.body.msg).toBe('If-Match must be a record version such as "3", got \'latest\'');
    const badKey = await s.request('POST', poi, { token: alice, body: { title: 'x', reportTime: '2026-11-21' }, headers: { 'idempotency-key': 'a key' } });
    expect(badKey.body.msg).toBe("Idempotency-Key must be 1-200 letters, digits or - _ . :, got 'a key'");
    const deleted = await s.request('DELETE', `${poi}/${id}?version=2`, { token: alice, headers: { 'if-match': '"2"' } });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
  });

  it('refuses bodies the document forbids, naming the field, and takes ids as numbers or digits', async () => {
    const submit = '/api/vtp/issueRecord/aiSubmit';
    const cases: [unknown, string][] = [
      [{ id: 'abc' }, "id must be an issue id, a whole number from 1 to 2147483647, got 'abc'"],
      [{ id: '2147483648' }, "id must be an issue id, a whole number from 1 to 2147483647, got '2147483648'"],
      [{ id: 2147483648 }, "id must be an issue id, a whole number from 1 to 2147483647, got '2147483648'"],
      [{ mode: '' }, 'id must be an issue id, a whole number from 1 to 2147483647, got nothing'],
      [{ id: 12, mode: 'AGAIN' }, "mode must be '' (first submit) or 'AI_RETRY' (resubmit), got 'AGAIN'"],
      [[12], 'The request body must be a JSON object such as {"id": 12, "mode": ""}'],
    ];
    for (const [body, msg] of cases) {
      const res = await s.request('POST', submit, { token: alice, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.msg, JSON.stringify(body)).toBe(msg);
      expect(documentAllowsBody(submit, 'post', body), JSON.stringify(body)).toBe(false);
    }
    for (const body of [{ id: 2147483647 }, { id: '2147483647', mode: 'AI_RETRY' }, { id: 7, mode: null }]) {
      const res = await s.request('POST', submit, { token: alice, body });
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(documentAllowsBody(submit, 'post', body), JSON.stringify(body)).toBe(true);
    }
    const link = await s.request('POST', '/api/system/signed-link', { token: alice, body: { ttlSeconds: 60 } });
    expect(link.body.msg).toBe('path must be the download or file URL to sign, such as /download/generate_excel?..., got nothing');
  });

  it('answers the upload session in Graph shapes and the downloads in envelopes, with the field named', async () => {
    const session = '/sharepoint/files/upload/session?path=validated';
    const cases: [unknown, string][] = [
      [{ fileSize: 10 }, 'fileName must be the name the uploaded file should get (not blank), got nothing'],
      [{ item: { name: ' ' } }, "item.name must be the name the uploaded file should get (not blank), got ' '"],
      [{ fileName: 'a.bin', fileSize: -1 }, "fileSize must be a whole number of bytes, got '-1'"],
      [{ fileName: 'a.bin', deferCommit: 'yes' }, "deferCommit must be true or false, got 'yes'"],
      [{ fileName: 'a.bin', conflictBehavior: 'keep' }, "conflictBehavior must be one of: 'fail', 'rename', 'replace', got 'keep'"],
    ];
    for (const [body, msg] of cases) {
      const res = await s.request('POST', session, { token: alice, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body, JSON.stringify(body)).toEqual({ error: { code: 'invalidRequest', message: msg } });
      expect(documentAllowsBody('/sharepoint/files/upload/session', 'post', body), JSON.stringify(body)).toBe(false);
    }
    const made = await s.request('POST', session, {
      token: alice,
      body: { item: { name: 'a.bin', '@microsoft.graph.conflictBehavior': 'rename' }, fileSize: 3 },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);

    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    const upload = await fetch(`${s.url}/sharepoint/files/upload?path=validated&%40microsoft.graph.conflictBehavior=keep`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}` },
      body: form,
    });
    expect(upload.status).toBe(400);
    expect(((await upload.json()) as { msg: string }).msg).toBe("@microsoft.graph.conflictBehavior must be one of: 'fail', 'rename', 'replace', got 'keep'");

    for (const [query, msg] of [
      ['?date=2026-02-30', "date must be a day like 2026-11-21 or 2026-11-21 00:00:00, got '2026-02-30'"],
      ['?date=2026-11-21&lang=fr', "lang must be en or zh, got 'fr'"],
      ['?date=2026-11-21&vehicle=V1&vehicle=V2', "vehicle must be text, got 'V1' and 'V2'"],
    ]) {
      const res = await fetch(`${s.url}/download/generate_excel${query}`, { headers: { authorization: `Bearer ${alice}` } });
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { msg: string }).msg, query).toBe(msg);
    }
  });

  it('signs in before it checks parameters, everywhere', async () => {
    for (const url of ['/api/vtp/poi/abc', '/api/vtp/stats/day?date=x', `/sharepoint/files?path=${'a'.repeat(2000)}`, '/download/generate_excel?date=x']) {
      expect((await s.request('GET', url)).status, url).toBe(401);
    }
    expect((await s.request('POST', '/sharepoint/files/upload/session?path=x', { body: { fileSize: 'big' } })).status).toBe(401);
  });

  it('says it in Chinese for a phone in Chinese, naming the field as it is', async () => {
    const res = await s.request('GET', '/api/vtp/poi/abc', { token: alice, headers: { 'accept-language': 'zh-CN' } });
    expect(res.body.msg).toBe("id 必须是 1 到 2147483647 之间的整数，收到 'abc'");
    const day = await s.request('GET', '/api/vtp/stats/day', { token: alice, headers: { 'accept-language': 'zh-CN,zh;q=0.9' } });
    expect(day.body.msg).toBe('date 必须是日期，如 2026-11-21（yyyy-MM-dd），但未提供');
  });
});
