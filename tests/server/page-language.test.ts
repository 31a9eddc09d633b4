import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.js';

// docs/decisions/045: the page and its shell (decision 026) are drawn in the language the
// request's Accept-Language prefers, so a phone in Chinese sees no English before the app runs.
function builtClient(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rtd-client-lang-'));
  fs.mkdirSync(path.join(dir, '.vite'));
  fs.writeFileSync(path.join(dir, '.vite', 'manifest.json'), '{}');
  fs.writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html>\n<html lang="en">\n<head><title>Road Test Data</title></head>\n<body><div id="root"></div></body>\n</html>',
  );
  return dir;
}

describe('the page in the language the request prefers', () => {
  const s = useTestServer({ name: 'sqlite' }, { CLIENT_DIR: builtClient() });

  const page = async (p: string, language?: string): Promise<{ text: string; res: Response }> => {
    const res = await fetch(s.url + p, { headers: { accept: 'text/html', ...(language ? { 'accept-language': language } : {}) } });
    return { text: await res.text(), res };
  };

  it('draws the shell, <html lang> and the title in Chinese for a request preferring Chinese, in English otherwise', async () => {
    const zh = await page('/data/issue/12', 'zh-CN,zh;q=0.9,en;q=0.8');
    expect(zh.res.status).toBe(200);
    expect(zh.text).toContain('<html lang="zh-CN" data-language="zh">');
    expect(zh.text).toContain('<title>路试数据</title>');
    expect(zh.text).toContain('<h1 class="page-header-title">问题记录：12</h1>');
    expect(zh.text).toContain('<span>工作台</span>');
    expect(zh.text).toContain('aria-label="返回"');
    expect(zh.text).toContain('加载中...');
    expect(zh.text).not.toMatch(/Loading|Workspace|Issue Record|Road Test Data/);

    for (const language of [undefined, 'en-US,en;q=0.9,zh-CN;q=0.8', 'fr']) {
      const en = await page('/data/issue/12', language);
      expect(en.text, language).toContain('<html lang="en" data-language="en">');
      expect(en.text).toContain('<title>Road Test Data</title>');
      expect(en.text).toContain('<h1 class="page-header-title">Issue Record: 12</h1>');
      expect(en.text).toContain('<span>Workspace</span>');
      expect(en.text).not.toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it('says that the page varies with Accept-Language, with an ETag per language', async () => {
    for (const p of ['/data', '/login']) {
      const zh = await page(p, 'zh-CN');
      const en = await page(p, 'en');
      expect(zh.res.headers.get('vary') ?? '', p).toMatch(/accept-language/i);
      expect(en.res.headers.get('vary') ?? '', p).toMatch(/accept-language/i);
      expect(zh.res.headers.get('etag')).not.toBe(en.res.headers.get('etag'));
      // The sign-in page has no shell, but its language and title follow the request too.
      if (p === '/login') expect(zh.text).toContain('<html lang="zh-CN" data-language="zh">');
      const again = await fetch(s.url + p, { headers: { accept: 'text/html', 'accept-language': 'zh-CN', 'if-none-match': zh.res.headers.get('etag') ?? '' } });
      expect(again.status).toBe(304);
    }
  });
});
