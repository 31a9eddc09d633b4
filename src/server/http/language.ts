/** The language of an answer a person reads (decision 045): the app sends its screen's as Accept-Language. */
type AnswerLanguage = 'en' | 'zh';

/** The header's language ranges with their q-values (RFC 9110 section 12.5.4), best first; malformed parts are skipped. */
export function languageRanges(header: string | string[] | undefined): { tag: string; q: number; order: number }[] {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  const out: ReturnType<typeof languageRanges> = [];
  for (const [order, part] of text.slice(0, 1000).split(',').entries()) {
    const [rawTag, ...params] = part.split(';').map((s) => s.trim());
    const tag = (rawTag ?? '').toLowerCase();
    if (!/^(?:\*|[a-z]{1,8}(?:-[a-z0-9]{1,8})*)$/.test(tag)) continue;
    let q = 1;
    for (const param of params) {
      const m = /^q\s*=\s*(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i.exec(param);
      if (m) q = Number(m[1]);
      else if (/^q\s*=/i.test(param)) q = -1;
    }
    if (q > 0) out.push({ tag, q, order });
  }
  return out.sort((a, b) => b.q - a.q || a.order - b.order);
}

/** Chinese when the most preferred of en and zh is any zh tag; English otherwise. */
export function answerLanguage(header: string | string[] | undefined): AnswerLanguage {
  for (const { tag } of languageRanges(header)) {
    const base = tag.split('-')[0];
    if (base === 'zh') return 'zh';
    if (base === 'en') return 'en';
  }
  return 'en';
}

export const requestLanguage = (request: { headers: Record<string, string | string[] | undefined> }): AnswerLanguage =>
  answerLanguage(request.headers['accept-language']);
