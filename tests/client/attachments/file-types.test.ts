import { describe, expect, it } from 'vitest';
import { fileTypeOf, formatSize, toItems } from '../../../src/client/files/file-types';
import { customRecordingName, defaultRecordingName, recordingExtension } from '../../../src/client/files/use-recorder';

describe('file types (docs/PRODUCT.md section 10)', () => {
  it('knows images, video, pdf and audio by extension, case-insensitively', () => {
    for (const ext of ['jpg', 'JPEG', 'png', 'gif', 'bmp', 'webp', 'svg']) expect(fileTypeOf({ name: `a.${ext}` })).toBe('image');
    for (const ext of ['mp4', 'MOV', 'avi', 'wmv', 'mkv']) expect(fileTypeOf({ name: `a.${ext}` })).toBe('video');
    for (const ext of ['mp3', 'wav', 'ogg', 'aac', 'webm', 'opus']) expect(fileTypeOf({ name: `a.${ext}` })).toBe('audio');
    expect(fileTypeOf({ name: 'report.PDF' })).toBe('pdf');
    expect(fileTypeOf({ name: 'notes.txt' })).toBe('file');
    expect(fileTypeOf({ name: 'README' })).toBe('file');
  });

  it('goes by the mime type first, and a webm video mime counts as audio', () => {
    expect(fileTypeOf({ name: 'clip.webm', mimeType: 'video/webm' })).toBe('audio');
    expect(fileTypeOf({ name: 'blob', mimeType: 'video/webm;codecs=vp9' })).toBe('audio');
    expect(fileTypeOf({ name: 'clip.bin', mimeType: 'video/mp4' })).toBe('video');
    expect(fileTypeOf({ name: 'photo', mimeType: 'image/jpeg' })).toBe('image');
    expect(fileTypeOf({ name: 'doc', mimeType: 'application/pdf' })).toBe('pdf');
    expect(fileTypeOf({ name: 'voice', mimeType: 'audio/ogg' })).toBe('audio');
    // An unhelpful mime type leaves the extension to decide.
    expect(fileTypeOf({ name: 'clip.mp4', mimeType: 'application/octet-stream' })).toBe('video');
    expect(fileTypeOf({ name: 'photos.png', mimeType: '', isFolder: true })).toBe('folder');
  });

  it('shows sizes in Bytes, KB, MB, GB and TB by 1024', () => {
    expect(formatSize(0)).toBe('0 Bytes');
    expect(formatSize(1023)).toBe('1023 Bytes');
    expect(formatSize(1024)).toBe('1 KB');
    expect(formatSize(1536)).toBe('1.5 KB');
    expect(formatSize(1024 * 1024 - 1)).toBe('1024 KB');
    expect(formatSize(1.5 * 1024 * 1024)).toBe('1.5 MB');
    expect(formatSize(52428800)).toBe('50 MB');
    expect(formatSize(3 * 1024 ** 3)).toBe('3 GB');
    expect(formatSize(2 * 1024 ** 4)).toBe('2 TB');
  });

  it('lists folders first, then by name, with paths inside the folder', () => {
    const items = toItems('/a/b/', [
      { id: '1', name: 'z.png', isFolder: false, mimeType: 'image/png', size: 1, modified: '' },
      { id: '2', name: 'B', isFolder: true, mimeType: '', size: 0, modified: '' },
      { id: '3', name: 'a10.txt', isFolder: false, mimeType: '', size: 1, modified: '' },
      { id: '4', name: 'a9.txt', isFolder: false, mimeType: '', size: 1, modified: '' },
      { id: '5', name: 'A', isFolder: true, mimeType: '', size: 0, modified: '' },
    ]);
    expect(items.map((i) => i.name)).toEqual(['A', 'B', 'a9.txt', 'a10.txt', 'z.png']);
    expect(items[4]).toMatchObject({ type: 'image', path: 'a/b/z.png' });
  });
});

describe('recording names', () => {
  it('takes the extension from the recorded type', () => {
    expect(recordingExtension('audio/webm;codecs=opus')).toBe('webm');
    expect(recordingExtension('audio/ogg')).toBe('ogg');
    expect(recordingExtension('audio/mp4')).toBe('m4a');
  });

  it('is recording_{yyyyMMdd-HHmmss} or a safe custom name', () => {
    expect(defaultRecordingName('webm', new Date(2026, 10, 20, 8, 5, 9))).toBe('recording_20261120-080509.webm');
    expect(customRecordingName('Brake noise', 'webm')).toBe('Brake noise.webm');
    expect(customRecordingName('a/b:c', 'ogg')).toBe('a_b_c.ogg');
    expect(customRecordingName('note.webm', 'webm')).toBe('note.webm');
    expect(() => customRecordingName('...', 'webm')).toThrow();
  });
});
