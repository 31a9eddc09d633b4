import { afterEach, describe, expect, it } from 'vitest';
import { registry } from '../../src/client/engine/registry';
import { applyLanguage } from '../../src/client/i18n';
import { analysisPhase, analysisValueText, workerReasonText } from '../../src/client/kinds/issue-status/phase';
import type { Kind } from '../../src/shared/kind-types';

// docs/decisions/045: the analysis flow's stored words and the workers' failure reasons are shown
// in the language on screen where they are known; free text stays as it is.
describe('the analysis words on screen', () => {
  const issue = registry.get('issue') as Kind;
  afterEach(async () => {
    await applyLanguage('en');
  });

  it("says the stored statuses in Chinese on a Chinese screen, and only the analysis fields' known values", async () => {
    await applyLanguage('zh');
    expect(analysisValueText(issue, 'issueStatus', 'AI_PROCESS')).toBe('AI 处理中');
    expect(analysisValueText(issue, 'videoAnalysisStatus', 'DOING')).toBe('进行中');
    expect(analysisValueText(issue, 'videoDesensitizationStatus', 'FAILED')).toBe('失败');
    expect(analysisValueText(issue, 'issueStatus', 'Open')).toBeUndefined();
    expect(analysisValueText(issue, 'issueTitle', 'READY')).toBeUndefined();
    expect(analysisValueText(registry.get('drive') as Kind, 'issueStatus', 'AI_PROCESS')).toBeUndefined();
    await applyLanguage('en');
    expect(analysisValueText(issue, 'issueStatus', 'AI_PROCESS')).toBe('In AI processing');
  });

  it("translates the workers' known reasons, keeping their detail, and leaves other reasons as they are", async () => {
    await applyLanguage('zh');
    expect(workerReasonText('Desensitization failed: ffmpeg exited with code 1')).toBe('脱敏失败：ffmpeg exited with code 1');
    expect(workerReasonText('The AI model failed 3 times: HTTP 502')).toBe('AI 模型失败 3 次：HTTP 502');
    expect(workerReasonText('disk full')).toBe('disk full');
    const phase = analysisPhase(
      { issueStatus: 'AI_PROCESS' } as never,
      {
        state: 'failed',
        error: 'Desensitization failed: no frames',
        videoAnalysisStatus: 'READY',
        videoDesensitizationStatus: 'FAILED',
      } as never,
    );
    expect(phase?.text).toBe('失败：脱敏失败：no frames');
    await applyLanguage('en');
    expect(workerReasonText('Desensitization failed: no frames')).toBe('Desensitization failed: no frames');
  });
});
