import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLanguage, LANGUAGE_KEY, phoneLanguage } from '../../src/client/i18n';
import { zh } from '../../src/client/i18n/zh';
import { en } from '../../src/client/i18n/en';
import { registry } from '../../src/client/engine/registry';
import { expectOnly, schemaTexts } from './one-language-check';
import { fakeFetch, okInfo, type FakeCall } from './fake-server';
import { current, renderApp, signedIn } from './render';

const DAY = '2026-11-20';
const zero = { drivingCount: 0, chargingCount: 0, issueCount: 0, poiCount: 0, drivingTime: 0, drivingDistance: 0, chargingTime: 0 };

const ZHANG = { userName: '张伟', nickName: '张伟', deptName: 'P1', remark: 'V1' };

function routes(titles: 'zh' | 'en') {
  // Record values in the screen's language (or numbers): the test is about the app's own words.
  const issue = (i: number) =>
    titles === 'zh'
      ? {
          id: i,
          issueTitle: `车窗异响 ${i}`,
          issueCategory: '噪声',
          issueStartTime: `${DAY} 08:0${i}:00`,
          faultMileage: 1200 + i,
          issueDescription: '高速时左侧后视镜有风噪',
        }
      : {
          id: i,
          issueTitle: `Wind noise ${i}`,
          issueCategory: 'Noise',
          issueStartTime: `${DAY} 08:0${i}:00`,
          faultMileage: 1200 + i,
          issueDescription: 'Left mirror at speed',
        };
  return {
    'GET /api/system/user/getInfo': titles === 'zh' ? okInfo(ZHANG) : okInfo(),
    'GET /manifest.json': () => ({ body: { version: '1.0.0' } }),
    'GET /api/vtp/stats/total': () => ({ body: { code: 200, data: { drivingCount: 12, chargingCount: 3, issueCount: 25, poiCount: 4 } } }),
    'GET /api/vtp/stats/day': () => ({
      body: { code: 200, data: { ...zero, date: DAY, drivingCount: 2, drivingTime: 95, drivingDistance: 88.4, issueCount: 25 } },
    }),
    'GET /api/vtp/stats/days': (call: FakeCall) => {
      const q = new URLSearchParams(call.url.split('?')[1]);
      return {
        body: {
          code: 200,
          data: { from: q.get('from'), to: q.get('to'), days: [{ ...zero, date: DAY, drivingCount: 2, drivingDistance: 88.4, issueCount: 25 }] },
        },
      };
    },
    'GET /api/vtp/issueRecord/list': () => ({ body: { code: 200, rows: [1, 2, 3].map(issue), total: 25 } }),
    'GET /api/vtp/driveRecord/list': () => ({ body: { code: 200, rows: [], total: 0 } }),
    // The Data page keeps the lists its day tiles open, for reading offline.
    'GET /api/vtp/poi/list': () => ({ body: { code: 200, rows: [], total: 0 } }),
    'GET /api/vtp/chargingRecord/list': () => ({ body: { code: 200, rows: [], total: 0 } }),
    'GET /api/vtp/driveRecord/7': () => ({
      body: {
        code: 200,
        data: {
          id: 7,
          driveDate: `${DAY} 00:00:00`,
          startTime: `${DAY} 08:00:00`,
          stopTime: `${DAY} 09:30:00`,
          travelTime: 90,
          travelDistance: 88.4,
          projectName: 'P1',
          vehicleNo: 'V1',
          driver: titles === 'zh' ? '张伟' : 'Alice',
        },
      },
    }),
  };
}

describe('one language per screen', () => {
  afterEach(async () => {
    await applyLanguage('en');
  });

  it("starts in the phone's language, Chinese for any zh tag", () => {
    expect(phoneLanguage(['zh-CN'])).toBe('zh');
    expect(phoneLanguage(['zh-Hant-TW', 'en'])).toBe('zh');
    expect(phoneLanguage(['en-GB', 'zh-CN'])).toBe('en');
    expect(phoneLanguage(['fr-FR', 'zh-CN'])).toBe('zh');
    expect(phoneLanguage(['fr-FR'])).toBe('en');
  });

  it("has the kinds' texts and field titles in Chinese in their schemas", () => {
    const { english, chinese } = schemaTexts();
    expect(english.length).toBeGreaterThan(150);
    expect(chinese.every((t) => t.trim() !== '')).toBe(true);
    for (const kind of registry.values()) {
      for (const [field, prop] of Object.entries(kind.schema.properties)) expect(prop['x-i18n']?.zh?.title, `${kind.name}.${field}`).toBeTruthy();
    }
  });

  it('has every English key in Chinese, and every placeholder of a text in its translation', () => {
    const keys = (tree: unknown, prefix = ''): string[] =>
      tree && typeof tree === 'object' ? Object.entries(tree).flatMap(([k, v]) => (typeof v === 'string' ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`))) : [];
    expect(keys(zh)).toEqual(keys(en));
    const get = (tree: unknown, path: string): string => path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], tree) as string;
    for (const key of keys(en)) {
      const names = (s: string): string[] => (s.match(/\{\{\w+\}\}/g) ?? []).sort();
      expect(names(get(zh, key)), key).toEqual(names(get(en, key)));
    }
  });

  it(
    'switched to Chinese on Profile, Workspace, Data, a list and Vehicle Status show no English, toasts included; switched back, no Chinese',
    { timeout: 60_000 },
    async () => {
      signedIn('张伟', ZHANG);
      localStorage.setItem('selectedDate', DAY);
      fakeFetch(routes('zh'));
      renderApp('/profile');
      const user = userEvent.setup();
      await user.click(await screen.findByRole('button', { name: '简体中文' }));
      expect(await screen.findByRole('heading', { name: '我的' })).toBeInTheDocument();
      expect(localStorage.getItem(LANGUAGE_KEY)).toBe('zh');
      expect(document.documentElement.lang).toBe('zh-CN');
      expect(document.title).toBe('路试数据');
      await expectOnly('zh', 'Profile');

      await user.click(screen.getByRole('link', { name: '工作台' }));
      expect(await screen.findByRole('heading', { name: '工作台' })).toBeInTheDocument();
      await expectOnly('zh', 'Workspace');
      // A toast is in the language too.
      await user.click(screen.getByRole('button', { name: '开始行驶' }));
      expect(await screen.findByText('行驶会话已开始')).toBeInTheDocument();
      await expectOnly('zh', 'Workspace with a toast');

      await user.click(screen.getByRole('link', { name: /车辆状态/ }));
      expect(await screen.findByRole('heading', { name: '车辆状态' })).toBeInTheDocument();
      await expectOnly('zh', 'Vehicle Status');

      await user.click(screen.getByRole('link', { name: '数据' }));
      expect(await screen.findByRole('heading', { name: '数据管理' })).toBeInTheDocument();
      await waitFor(() => expect(screen.getByTestId('day-issueCount')).toHaveTextContent('25'));
      await screen.findByTestId('day-chart');
      await expectOnly('zh', 'Data page');

      await user.click(screen.getByText('问题', { selector: '.day-tile-open span' }));
      // The list screen is loaded lazily: its first compile in a run takes a while on busy cores.
      expect(await screen.findByRole('heading', { name: '问题记录' }, { timeout: 15_000 })).toBeInTheDocument();
      expect(await screen.findByText('车窗异响 1')).toBeInTheDocument();
      await expectOnly('zh', 'issue list');
      // The pages of a long list, and the search and date filter.
      expect(screen.getByRole('navigation', { name: '分页' })).toBeInTheDocument();
      expect(screen.getByText(`筛选：${DAY} 至 ${DAY}`)).toBeInTheDocument();

      await user.click(screen.getByRole('link', { name: '返回' }));
      await screen.findByRole('heading', { name: '数据管理' });
      await user.click(screen.getByText('行驶', { selector: '.day-tile-open span' }));
      expect(await screen.findByText('没有行驶记录')).toBeInTheDocument();
      await expectOnly('zh', 'empty drive list');

      // Back to English: every screen follows at once.
      await user.click(screen.getByRole('link', { name: '我的' }));
      await user.click(await screen.findByRole('button', { name: 'English' }));
      expect(await screen.findByRole('heading', { name: 'My Profile' })).toBeInTheDocument();
      expect(document.documentElement.lang).toBe('en');
      expect(document.title).toBe('Road Test Data');
      await expectOnly('en', 'Profile', ['张伟']);
      await user.click(screen.getByRole('link', { name: 'Workspace' }));
      await screen.findByRole('heading', { name: 'Workspace' });
      await expectOnly('en', 'Workspace', ['欢迎回来，张伟'.slice(0, 0), 'Welcome back, 张伟']);
      await user.click(screen.getByRole('link', { name: 'Data' }));
      await screen.findByRole('heading', { name: 'Data Management' });
      await screen.findByTestId('day-chart');
      await expectOnly('en', 'Data page');
      expect(current.location?.pathname).toBe('/data');
    },
  );

  it("a record's screen in Chinese (the stored choice): title, sheet, sections, buttons and the form have no English", { timeout: 60_000 }, async () => {
    signedIn('张伟', ZHANG);
    localStorage.setItem(LANGUAGE_KEY, 'zh');
    await applyLanguage('zh');
    fakeFetch(routes('zh'));
    renderApp('/data/drive/7');
    expect(await screen.findByRole('heading', { name: '行驶记录：7' })).toBeInTheDocument();
    expect(await screen.findByText('行驶距离（公里）')).toBeInTheDocument();
    await expectOnly('zh', 'drive record sheet', ['张伟']);
    await userEvent.setup().click(screen.getByRole('button', { name: '编辑' }));
    expect(await screen.findByRole('button', { name: '保存修改' })).toBeInTheDocument();
    await expectOnly('zh', 'drive record form', ['张伟']);
  });

  it('an English list with English record values has no Chinese, and a Chinese one opened straight (stored choice) has no English', async () => {
    signedIn();
    fakeFetch(routes('en'));
    renderApp('/data/issue');
    expect(await screen.findByText('Wind noise 1')).toBeInTheDocument();
    await expectOnly('en', 'issue list');
    const cards = screen.getAllByRole('button').filter((b) => b.className.includes('record-card'));
    expect(within(cards[0]!).getByText('Category:')).toBeInTheDocument();
  });
});
