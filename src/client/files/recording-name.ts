import { format } from 'date-fns';

/** Recording formats in order of preference (docs/PRODUCT.md section 10: opus in webm first). */
export const RECORDING_TYPES = ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4'];

/** The first preferred type this browser records, or undefined to let it choose (Safari before 14.1). */
export function pickRecordingType(): string | undefined {
  if (typeof MediaRecorder === 'undefined' || typeof MediaRecorder.isTypeSupported !== 'function') return undefined;
  return RECORDING_TYPES.find((type) => MediaRecorder.isTypeSupported(type));
}

/** The file extension of a recorded type: webm, ogg or m4a (what iOS records as audio/mp4). */
export function recordingExtension(type: string): string {
  if (type.includes('ogg')) return 'ogg';
  if (type.includes('mp4') || type.includes('aac')) return 'm4a';
  return 'webm';
}

/** recording_{yyyyMMdd-HHmmss}.{ext} */
export function defaultRecordingName(ext: string, now = new Date()): string {
  return `recording_${format(now, 'yyyyMMdd-HHmmss')}.${ext}`;
}

/**
 * The name the person typed, made a safe single file name with the recording's extension.
 * Throws when nothing usable is left, so the caller falls back to the default name.
 */
export function customRecordingName(custom: string, ext: string): string {
  const base = custom
    .normalize('NFC')
    .replace(/[\\/:*?"<>|\p{Cc}\p{Cf}]/gu, '_')
    .trim()
    .replace(/[. ]+$/, '');
  if (base === '' || /^[._ ]+$/.test(base)) throw new Error(`'${custom}' cannot be used as a file name`);
  return base.toLowerCase().endsWith(`.${ext}`) ? base : `${base}.${ext}`;
}
