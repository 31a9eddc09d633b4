import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, dbTargets, forgeLink, linkClaimOf, useTestServer } from '../../helpers/server.js';
import { createSession, multipartUpload, parse, putFragment } from './client.js';

describe.each(dbTargets())('shared-files service on $name', (target) => {
  const s = useTestServer(target);
  let alice: string;
  let bob: string;
  const video = randomBytes(300_000);
  beforeAll(async () => {
    [alice, bob] = await Promise.all([s.login(ALICE.username, ALICE.password), s.login(BOB.username, BOB.password)]);
  });

  const get = (url: string, token?: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(s.url + url, { headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
  const q = (p: string): string => encodeURIComponent(p);

  it('uploads by multipart, keeps a second file of the same name, and lists folders first, then by name', async () => {
    const up = await multipartUpload(s, alice, '/issue_1/', '报告 ü.pdf', '%PDF-1.4 test');
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body).toMatchObject({
      code: 200,
      data: { name: '报告 ü.pdf', isFolder: false, mimeType: 'application/pdf', size: 13, path: 'issue_1/报告 ü.pdf' },
    });
    expect(up.body.data.id).toMatch(/^[\w-]{22}$/);
    expect(Date.parse(up.body.data.modified)).toBeGreaterThan(Date.now() - 60_000);
    const again = await multipartUpload(s, alice, 'issue_1', '报告 ü.pdf', 'second');
    expect(again.body.data.name).toBe('报告 ü (1).pdf');

    for (const name of ['z.txt', '10.jpg', '9.jpg', 'B.webm']) expect((await multipartUpload(s, alice, 'issue_1', name, 'x')).status).toBe(200);
    for (const folder of ['issue_1/zeta', 'issue_1/Alpha']) expect((await multipartUpload(s, alice, folder, 'f.txt', 'x')).status).toBe(200);
    const list = await s.request('GET', `/sharepoint/files?path=${q('/issue_1/')}`, { token: alice });
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { name: string }) => e.name)).toEqual([
      'Alpha',
      'zeta',
      '9.jpg',
      '10.jpg',
      'B.webm',
      'z.txt',
      '报告 ü (1).pdf',
      '报告 ü.pdf',
    ]);
    const alpha = list.body.data[0];
    expect(alpha).toMatchObject({ isFolder: true, size: 0, mimeType: '', path: 'issue_1/Alpha' });
    expect(Object.keys(alpha).sort()).toEqual(['id', 'isFolder', 'mimeType', 'modified', 'name', 'path', 'size']);
    const again2 = await s.request('GET', `/sharepoint/files?path=issue_1`, { token: alice });
    expect(again2.body.data.map((e: { id: string }) => e.id)).toEqual(list.body.data.map((e: { id: string }) => e.id));
    expect(list.body.data.find((e: { name: string }) => e.name === 'B.webm').mimeType).toBe('video/webm');
  });

  it('lists a missing folder as empty, refuses to list a file, and needs sign-in', async () => {
    expect((await s.request('GET', '/sharepoint/files?path=no/such/folder', { token: alice })).body).toEqual({ code: 200, msg: '操作成功', data: [] });
    expect((await s.request('GET', `/sharepoint/files?path=${q('issue_1/z.txt')}`, { token: alice })).status).toBe(400);
    expect((await s.request('GET', '/sharepoint/files')).status).toBe(401);
    expect((await s.request('GET', '/sharepoint/files', { token: 'not-a-token' })).status).toBe(401);
    expect((await multipartUpload(s, alice, 'x', 'a.txt', 'x', 'attachment')).status).toBe(400);
  });

  it('downloads whole files and byte ranges, with type, name and no compression', async () => {
    const upload = await createSession(s, alice, 'media', 'drive.mp4');
    expect((await putFragment(s, upload, video, 0, video.length)).status).toBe(201);

    const full = await get(`/sharepoint/files/download?path=${q('media/drive.mp4')}`, alice, { 'accept-encoding': 'gzip, br' });
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('video/mp4');
    expect(full.headers.get('accept-ranges')).toBe('bytes');
    expect(full.headers.get('content-encoding')).toBeNull();
    // An ASCII name needs no filename* (RFC 6266, as the content-disposition package writes it).
    expect(full.headers.get('content-disposition')).toBe('attachment; filename="drive.mp4"');
    expect(Buffer.from(await full.arrayBuffer()).equals(video)).toBe(true);

    const part = await get(`/sharepoint/files/download?path=${q('media/drive.mp4')}`, alice, { range: 'bytes=1000-1999' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${video.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(video.subarray(1000, 2000))).toBe(true);
    const tail = await get(`/sharepoint/files/download?path=${q('media/drive.mp4')}`, alice, { range: 'bytes=-10' });
    expect(Buffer.from(await tail.arrayBuffer()).equals(video.subarray(-10))).toBe(true);
    const open = await get(`/sharepoint/files/download?path=${q('media/drive.mp4')}`, alice, { range: `bytes=${video.length - 5}-` });
    expect(open.headers.get('content-range')).toBe(`bytes ${video.length - 5}-${video.length - 1}/${video.length}`);
    const beyond = await get(`/sharepoint/files/download?path=${q('media/drive.mp4')}`, alice, { range: `bytes=${video.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe(`bytes */${video.length}`);

    const cn = await get(`/sharepoint/files/download?path=${q('issue_1/报告 ü.pdf')}`, alice);
    expect(cn.headers.get('content-disposition')).toBe(`attachment; filename="__ _.pdf"; filename*=UTF-8''${encodeURIComponent('报告 ü.pdf')}`);
    expect((await get('/sharepoint/files/download?path=media/missing.mp4', alice)).status).toBe(404);
    expect((await get('/sharepoint/files/download?path=media', alice)).status).toBe(400);
  });

  it('sends only media and plain text as what they are; script, markup and unknown types as octet-stream downloads', async () => {
    const names: [string, string | undefined][] = [
      ['evil.js', undefined],
      ['evil.mjs', undefined],
      ['page.html', undefined],
      ['page.xhtml', undefined],
      ['drawing.svg', undefined],
      ['feed.xml', undefined],
      ['style.css', undefined],
      ['data.json', undefined],
      ['blob.unknownext', undefined],
      ['notes.txt', 'text/plain; charset=utf-8'],
      ['clip.mp4', 'video/mp4'],
      ['photo.jpg', 'image/jpeg'],
      ['voice.m4a', 'audio/mp4'],
      ['report.pdf', 'application/pdf'],
    ];
    for (const [name, type] of names) {
      expect((await multipartUpload(s, alice, 'served', name, '<script>alert(1)</script>', 'file', 'replace')).status, name).toBe(200);
      for (const route of ['files/download', 'files/preview']) {
        const res = await get(`/sharepoint/${route}?path=${q(`served/${name}`)}`, alice);
        expect(res.headers.get('content-type'), `${route} ${name}`).toBe(type ?? 'application/octet-stream');
        // What is not media is a download even from the preview route.
        if (type === undefined) expect(res.headers.get('content-disposition'), `${route} ${name}`).toMatch(/^attachment;/);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      }
    }
  });

  it('previews inline in a sandbox, and preview.html shows the file through a signed link of its own', async () => {
    const preview = await get(`/sharepoint/files/preview?path=${q('media/drive.mp4')}`, alice, { range: 'bytes=0-99' });
    expect(preview.status).toBe(206);
    expect(preview.headers.get('content-disposition')).toMatch(/^inline; filename="drive.mp4"/);
    expect(preview.headers.get('content-security-policy')).toMatch(/^sandbox/);
    expect(preview.headers.get('x-content-type-options')).toBe('nosniff');

    const page = await get(`/sharepoint/preview.html?path=${q('media/drive.mp4')}`, alice);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await page.text();
    const src = /<video src="([^"]+)"/.exec(html)?.[1]?.replaceAll('&#38;', '&');
    expect(src).toMatch(/^\/sharepoint\/files\/preview\?path=media%2Fdrive\.mp4&_link=[\w-]+\.[\w-]{43}$/);
    // The browser fetches the media with no header at all: the signature is what lets it in.
    const media = await get(src as string, undefined, { range: 'bytes=100-199' });
    expect(media.status).toBe(206);
    expect(Buffer.from(await media.arrayBuffer()).equals(video.subarray(100, 200))).toBe(true);

    const pdfPage = await (await get(`/sharepoint/preview.html?path=${q('issue_1/报告 ü.pdf')}`, alice)).text();
    expect(pdfPage).toMatch(/<iframe src="\/sharepoint\/files\/preview\?path=issue_1%2F/);
    expect(pdfPage).toContain('<title>报告 ü.pdf</title>');
    expect(await get(`/sharepoint/preview.html?path=${q('issue_1/9.jpg')}`, alice).then((r) => r.text())).toMatch(/<img src=/);
  });

  it('serves a signed link without a Bearer header, and refuses it tampered with or expired', async () => {
    const target = `/sharepoint/files/download?path=${q('media/drive.mp4')}`;
    const signed = await s.request('POST', '/api/system/signed-link', { token: alice, body: { path: target } });
    const url = signed.body.data.url as string;
    const ok = await get(url);
    expect(ok.status).toBe(200);
    expect(Buffer.from(await ok.arrayBuffer()).equals(video)).toBe(true);
    expect((await get(url.replace('drive.mp4', 'other.mp4'))).status).toBe(401);
    expect((await get(forgeLink(url, { u: 2 }))).status).toBe(401);
    const expired = s.app.services.signer.sign(await linkClaimOf(s, alice), target, Date.now() - 3600_000).url;
    const refused = await parse(await get(expired));
    expect(refused.status).toBe(401);
    expect(refused.body.msg).toMatch(/expired/);
    expect((await get(target)).status).toBe(401);
  });

  it("never lists or serves another project's files, whatever the query says", async () => {
    expect((await multipartUpload(s, alice, 'secret', 'plan.pdf', 'P1 only')).status).toBe(200);
    const root = await s.request('GET', '/sharepoint/files?path=&projectName=P1&project=P1', { token: bob });
    expect(root.body.data).toEqual([]);
    expect((await s.request('GET', '/sharepoint/files?path=secret', { token: bob })).body.data).toEqual([]);
    for (const route of ['files/download', 'files/preview', 'preview.html']) {
      expect((await get(`/sharepoint/${route}?path=secret%2Fplan.pdf&project=P1`, bob)).status, route).toBe(404);
    }
    expect((await get(s.app.services.signer.sign(await linkClaimOf(s, bob), '/sharepoint/files/download?path=secret%2Fplan.pdf').url)).status).toBe(404);
    expect((await multipartUpload(s, bob, 'secret', 'plan.pdf', 'P2 file')).body.data.name).toBe('plan.pdf');
    expect(await (await get('/sharepoint/files/download?path=secret%2Fplan.pdf', alice)).text()).toBe('P1 only');
    // Scoping is by project: Carol, in Alice's project, sees Alice's file.
    const carol = await s.login(CAROL.username, CAROL.password);
    expect((await s.request('GET', '/sharepoint/files?path=secret', { token: carol })).body.data.map((e: { name: string }) => e.name)).toEqual(['plan.pdf']);
  });
});
