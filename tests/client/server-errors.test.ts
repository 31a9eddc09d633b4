import { describe, expect, it } from 'vitest';
import { registry } from '../../src/client/engine/registry';
import { fieldErrorsOf } from '../../src/client/engine/server-errors';
import type { Kind } from '../../src/shared/kind-types';

// A refused save puts each message under its field, whether the server answered in English or,
// for a screen in Chinese, in Chinese (docs/decisions/045).
describe('a refusal read into field errors', () => {
  const issue = registry.get('issue') as Kind;

  it('reads the English refusal, naming the fields by their titles', () => {
    const read = fieldErrorsOf(issue, 'faultMileage must be a number (got "abc"); issueTitle is required; Something else');
    expect(read.fields).toEqual(['faultMileage', 'issueTitle']);
    expect(read.errors['faultMileage']?.__errors).toEqual(['Fault Mileage (km) must be a number (got "abc")']);
    expect(read.text).toBe('Fault Mileage (km) must be a number (got "abc"); Title is required; Something else');
  });

  it('reads the Chinese refusal, finding the fields by their Chinese titles', () => {
    const msg = '「故障里程（公里）」必须是数字（收到 "abc"）；「标题」为必填项；「不存在的字段」为必填项';
    const read = fieldErrorsOf(issue, msg);
    expect(read.fields).toEqual(['faultMileage', 'issueTitle']);
    expect(read.errors['faultMileage']?.__errors).toEqual(['「故障里程（公里）」必须是数字（收到 "abc"）']);
    expect(read.errors['issueTitle']?.__errors).toEqual(['「标题」为必填项']);
    expect(read.text).toBe(msg);
  });
});
