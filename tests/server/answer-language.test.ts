import { describe, expect, it } from 'vitest';
import { answerLanguage, languageRanges } from '../../src/server/http/language.js';

// docs/decisions/045: refusals are in Chinese when Accept-Language prefers it, English otherwise.
describe('the language of an answer', () => {
  it('is Chinese for a zh tag the header prefers, whatever its region or script', () => {
    for (const header of [
      'zh-CN',
      'zh',
      'zh-Hans-CN',
      'zh-TW',
      'ZH-cn',
      'zh-CN,zh;q=0.9,en;q=0.8',
      'fr, zh-CN;q=0.5',
      'en;q=0.4, zh;q=0.6',
      'zh;q=0.5, en;q=0.5',
    ]) {
      expect(answerLanguage(header), header).toBe('zh');
    }
  });

  it('is English without a header, for *, for English preferred and for languages we do not have', () => {
    for (const header of [undefined, '', '*', 'en', 'en-US,en;q=0.9,zh-CN;q=0.8', 'fr-FR', 'zh;q=0, en', 'en;q=0.5, zh;q=0.5', 'zh-CN;q=abc', '%%%']) {
      expect(answerLanguage(header), String(header)).toBe('en');
    }
  });

  it('reads q-values, keeps the order of equal ones and skips malformed parts', () => {
    expect(languageRanges('en;q=0.5, zh-CN, fr;q=0.5, bad tag, de;q=2').map((r) => [r.tag, r.q])).toEqual([
      ['zh-cn', 1],
      ['en', 0.5],
      ['fr', 0.5],
    ]);
    expect(answerLanguage(['fr', 'zh-CN'])).toBe('zh');
  });
});
