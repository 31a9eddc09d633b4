import { beforeAll, describe, expect, it } from 'vitest';
import { ALICE, useTestServer } from '../helpers/server.js';

// docs/decisions/045: a refusal is worded in Chinese when the request's Accept-Language prefers
// Chinese (as the app sends it with its screen in Chinese), and in English, as before, otherwise.
const ZH = { 'accept-language': 'zh-CN' };
const HAN = /[\u4e00-\u9fff]/;

describe('refusals in the language the request asks for', () => {
  const s = useTestServer({ name: 'sqlite' });
  let alice: string;
  beforeAll(async () => {
    alice = await s.login(ALICE.username, ALICE.password);
  });

  it("names a record's wrong fields by their Chinese titles", async () => {
    const body = { issueTitle: 'x', faultMileage: 'abc' };
    const en = await s.request('POST', '/api/vtp/issueRecord', { token: alice, body });
    const zh = await s.request('POST', '/api/vtp/issueRecord', { token: alice, body, headers: ZH });
    expect(en.status).toBe(400);
    expect(en.body.msg).toContain('faultMileage must be a number (got "abc")');
    expect(en.body.msg).not.toMatch(HAN);
    expect(zh.status).toBe(400);
    expect(zh.body.code).toBe(400);
    expect(zh.body.msg).toContain('「故障里程（公里）」必须是数字（收到 "abc"）');
    expect(zh.body.msg).not.toContain('faultMileage');
    // English preferred over Chinese, or only other languages: English.
    const enFirst = await s.request('POST', '/api/vtp/issueRecord', { token: alice, body, headers: { 'accept-language': 'en-US,en;q=0.9,zh-CN;q=0.8' } });
    expect(enFirst.body.msg).toBe(en.body.msg);
    const other = await s.request('POST', '/api/vtp/issueRecord', { token: alice, body, headers: { 'accept-language': 'fr' } });
    expect(other.body.msg).toBe(en.body.msg);
  });

  it('says a 409 conflict and a 404 in Chinese, naming the fields by their Chinese titles', async () => {
    const created = await s.request('POST', '/api/vtp/issueRecord', { token: alice, body: { issueTitle: 'Before', issueDescription: 'd' } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.data.id as number;
    const v1 = String(created.body.data.version);
    expect((await s.request('PUT', '/api/vtp/issueRecord', { token: alice, body: { id, version: v1, issueTitle: 'Theirs' } })).status).toBe(200);
    const mine = { id, version: v1, issueTitle: 'Mine' };
    const en = await s.request('PUT', '/api/vtp/issueRecord', { token: alice, body: mine });
    const zh = await s.request('PUT', '/api/vtp/issueRecord', { token: alice, body: mine, headers: ZH });
    expect(en.status).toBe(409);
    expect(en.body.msg).toMatch(/^Title was changed by .+ since you opened this record; choose which values to keep$/);
    expect(zh.status).toBe(409);
    expect(zh.body.msg).toMatch(/^「标题」在您打开此记录后已被 .+ 修改；请选择要保留的值$/);
    expect(zh.body.data).toEqual(en.body.data);
    const missing = await s.request('GET', '/api/vtp/issueRecord/999999', { token: alice, headers: ZH });
    expect([missing.status, missing.body.msg]).toEqual([404, '问题记录 999999 不存在']);
  });

  it('asks for a sign-in in Chinese when the token is missing or has ended', async () => {
    const none = await s.request('GET', '/api/vtp/issueRecord/list', { headers: ZH });
    expect([none.status, none.body.msg]).toEqual([401, '请先登录：此请求需要 Authorization: Bearer 令牌']);
    const ended = await s.request('GET', '/api/vtp/issueRecord/list', { token: 'not-a-token-of-this-server', headers: ZH });
    expect([ended.status, ended.body.msg]).toEqual([401, '登录已过期或已退出，请重新登录']);
    const english = await s.request('GET', '/api/vtp/issueRecord/list', { token: 'not-a-token-of-this-server' });
    expect(english.body.msg).toBe('Your session has expired or was signed out; please sign in again');
  });

  it('refuses to submit an issue with nothing to analyse in Chinese', async () => {
    const created = await s.request('POST', '/api/vtp/issueRecord', { token: alice, body: { issueTitle: 'No clip yet' } });
    const id = created.body.data.id as number;
    const en = await s.request('POST', '/api/vtp/issueRecord/aiSubmit', { token: alice, body: { id, mode: '' } });
    const zh = await s.request('POST', '/api/vtp/issueRecord/aiSubmit', { token: alice, body: { id, mode: '' }, headers: ZH });
    expect([en.status, en.body.msg]).toEqual([400, `Issue ${id} has no video or image attachment to analyse; attach one in its Attachments card first`]);
    expect([zh.status, zh.body.msg]).toEqual([400, `问题记录 ${id} 没有可分析的视频或图片附件；请先在附件卡片中添加`]);
  });

  it('refuses a sign-in, a download and a file path in Chinese', async () => {
    const login = { username: ALICE.username, password: 'wrong-password-1' };
    const enLogin = await s.request('POST', '/api/auth/login', { body: login });
    const zhLogin = await s.request('POST', '/api/auth/login', { body: login, headers: ZH });
    expect([enLogin.status, enLogin.body.msg]).toEqual([401, 'Incorrect username or password']);
    expect([zhLogin.status, zhLogin.body.msg]).toEqual([401, '用户名或密码错误']);

    const download = '/download/download_IssueFiles?project=P2&date=2026-11-21';
    const enDownload = await s.request('GET', download, { token: alice });
    const zhDownload = await s.request('GET', download, { token: alice, headers: ZH });
    expect(enDownload.status).toBe(403);
    expect(enDownload.body.msg).toBe("project 'P2' is not your project; you can only download data of 'P1'");
    expect([zhDownload.status, zhDownload.body.msg]).toEqual([403, "项目 'P2' 不是您的项目；您只能下载项目 'P1' 的数据"]);

    const enPath = await s.request('GET', '/sharepoint/files?path=a/../b', { token: alice });
    const zhPath = await s.request('GET', '/sharepoint/files?path=a/../b', { token: alice, headers: ZH });
    expect([enPath.status, enPath.body.msg]).toEqual([400, `path "a/../b" contains '..', which could leave the project's folder`]);
    expect([zhPath.status, zhPath.body.msg]).toEqual([400, `路径 "a/../b" 含有 '..'，可能离开项目文件夹`]);
  });

  it("answers Fastify's own client errors in Chinese", async () => {
    const en = await s.request('POST', '/api/vtp/issueRecord', { token: alice, rawBody: '{"x":' });
    const zh = await s.request('POST', '/api/vtp/issueRecord', { token: alice, rawBody: '{"x":', headers: ZH });
    expect([en.status, en.body.msg]).toEqual([400, 'The request body is not valid JSON']);
    expect([zh.status, zh.body.msg]).toEqual([400, '请求内容不是有效的 JSON']);
  });
});
