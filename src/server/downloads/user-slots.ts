import { retryLater } from '../http/envelope.js';

/** A download named in English and in Chinese, for the refusal's two messages (docs/decisions/045). */
export interface Said {
  en: string;
  zh: string;
}

/**
 * Day packages and day reports under way at once, per user (DOWNLOADS_PER_USER). Each one holds
 * a database walk, a workbook in memory and open attachment files for as long as the client reads
 * it, so one user starting dozens of them would take the server's memory and disk from everyone
 * (decision 039). Counted in this process: a download streams from the instance it started on.
 */
export class DownloadSlots {
  private readonly running = new Map<number, Said[]>();

  constructor(private readonly perUser: number) {}

  /**
   * Takes a slot for the user's download `what` (for the message of a refusal), or throws a 429
   * naming what is still under way. The returned function gives the slot back; calling it twice
   * gives it back once.
   */
  take(userId: number, what: Said): () => void {
    const mine = this.running.get(userId) ?? [];
    if (mine.length >= this.perUser) {
      const list = mine.map((w) => w.en).join(', ');
      const one = this.perUser === 1;
      throw retryLater(
        429,
        `You are already downloading ${one ? 'a package' : `${mine.length} packages`} (${list}); ${one ? 'one download at a time' : `at most ${this.perUser} at a time`}: wait until ${one ? 'it has' : 'one has'} finished, then download ${what.en}`,
        10,
        `您正在下载${one ? '一个数据包' : ` ${mine.length} 个数据包`}（${mine.map((w) => w.zh).join('、')}）；${one ? '一次只能下载一个' : `一次最多 ${this.perUser} 个`}：请等${one ? '它' : '其中一个'}完成后再下载${what.zh}`,
      );
    }
    mine.push(what);
    this.running.set(userId, mine);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = this.running.get(userId) ?? [];
      left.splice(left.indexOf(what), 1);
      if (left.length === 0) this.running.delete(userId);
    };
  }

  /** Downloads under way for a user (tests). */
  count(userId: number): number {
    return this.running.get(userId)?.length ?? 0;
  }
}
