import { useCallback, useEffect, useRef, useState } from 'react';
import { t } from '../i18n';
import { useToast } from '../ui/toast';
import { format } from 'date-fns';

/** Recording formats in order of preference (docs/PRODUCT.md section 10: opus in webm first). */
const RECORDING_TYPES = ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4'];

/** The first preferred type this browser records, or undefined to let it choose (Safari before 14.1). */
function pickRecordingType(): string | undefined {
  if (typeof MediaRecorder === 'undefined' || typeof MediaRecorder.isTypeSupported !== 'function') return undefined;
  return RECORDING_TYPES.find((type) => MediaRecorder.isTypeSupported(type));
}

/** The file extension of a recorded type: webm, ogg or m4a (what iOS records as audio/mp4). */
export const recordingExtension = (type: string): string => (type.includes('ogg') ? 'ogg' : type.includes('mp4') || type.includes('aac') ? 'm4a' : 'webm');

export const defaultRecordingName = (ext: string, now = new Date()): string => `recording_${format(now, 'yyyyMMdd-HHmmss')}.${ext}`;

/** The name the person typed, made a safe single file name with the recording's extension; throws when nothing usable is left. */
export function customRecordingName(custom: string, ext: string): string {
  const base = custom
    .normalize('NFC')
    .replace(/[\\/:*?"<>|\p{Cc}\p{Cf}]/gu, '_')
    .trim()
    .replace(/[. ]+$/, '');
  if (base === '' || /^[._ ]+$/.test(base)) throw new Error(`'${custom}' cannot be used as a file name`);
  return base.toLowerCase().endsWith(`.${ext}`) ? base : `${base}.${ext}`;
}

export type Recorder = ReturnType<typeof useRecorder>;

const stopTracks = (stream: MediaStream): void => stream.getTracks().forEach((t) => t.stop());

/** A recording's file name: the one typed (made safe), else the default; a name that cannot be used falls back, said by `warn`. */
function recordingFileName(typed: string, type: string, warn: () => void): string {
  const ext = recordingExtension(type);
  const custom = typed.trim();
  if (custom === '') return defaultRecordingName(ext);
  try {
    return customRecordingName(custom, ext);
  } catch {
    warn();
    return defaultRecordingName(ext);
  }
}

/** Records in one-second slices (no huge buffer); `ended` gets them and their type without codecs, or null on failure; the mic is released. */
function recordStream(stream: MediaStream, ended: (recording: { chunks: Blob[]; type: string } | null) => void): MediaRecorder {
  const preferred = pickRecordingType();
  const rec = new MediaRecorder(stream, preferred ? { mimeType: preferred } : undefined);
  const chunks: Blob[] = [];
  let failed = false;
  rec.ondataavailable = (e: BlobEvent) => {
    if (e.data.size > 0) chunks.push(e.data);
  };
  rec.onerror = () => {
    failed = true;
    stopTracks(stream);
    ended(null);
  };
  rec.onstop = () => {
    stopTracks(stream);
    if (!failed) ended({ chunks, type: (rec.mimeType || preferred || 'audio/webm').split(';')[0] as string });
  };
  rec.start(1000);
  return rec;
}

function useElapsed(recording: boolean, startedAt: number): number {
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    if (!recording) return;
    setElapsed(0);
    const timer = setInterval(() => setElapsed(Math.floor((Date.now() - startedAt) / 1000)), 500);
    return () => clearInterval(timer);
  }, [recording, startedAt]);
  return elapsed;
}

/** In-browser voice notes: idle -> recording -> stop, handed over as a File; the microphone is released as soon as recording ends. */
export function useRecorder(onRecorded: (file: File) => void) {
  const toast = useToast();
  const [status, setStatus] = useState<'idle' | 'starting' | 'recording'>('idle');
  const [customName, setCustomName] = useState('');
  const [startedAt, setStartedAt] = useState(0);
  const elapsed = useElapsed(status === 'recording', startedAt);
  const recorder = useRef<MediaRecorder | null>(null);
  // Read when the recording stops, which may be long after the render that started it.
  const latest = useRef({ customName, onRecorded });
  useEffect(() => {
    latest.current = { customName, onRecorded };
  });
  // Leaving the screen mid-recording releases the microphone.
  useEffect(() => () => recorder.current?.stream.getTracks().forEach((t) => t.stop()), []);

  const ended = useCallback(
    (recording: { chunks: Blob[]; type: string } | null) => {
      recorder.current = null;
      setStatus('idle');
      if (recording === null) return toast('error', t('files.recordingError'));
      const name = recordingFileName(latest.current.customName, recording.type, () => toast('warn', t('files.nameFallback')));
      if (typeof File !== 'function') return toast('error', t('files.noFileConstructor'));
      setCustomName('');
      latest.current.onRecorded(new File(recording.chunks, name, { type: recording.type }));
    },
    [toast],
  );

  const start = useCallback(async () => {
    if (status !== 'idle') return;
    setStatus('starting');
    let stream: MediaStream | undefined;
    try {
      if (!navigator.mediaDevices?.getUserMedia) throw new Error('This browser cannot record audio');
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      recorder.current = recordStream(stream, ended);
      setStartedAt(Date.now());
      setStatus('recording');
      toast('info', t('files.recordingStarted'));
    } catch (e) {
      if (stream) stopTracks(stream);
      // Why the microphone could not be opened, in the words of docs/PRODUCT.md section 5; opened but not recording: it failed.
      const name = stream ? undefined : (e as { name?: unknown } | null)?.name;
      toast('error', t(name === 'NotAllowedError' ? 'files.micDenied' : name === 'NotFoundError' ? 'files.micNotFound' : 'files.micFailed'));
      setStatus('idle');
    }
  }, [status, toast, ended]);

  const stop = useCallback(() => {
    const rec = recorder.current;
    if (rec && rec.state !== 'inactive') rec.stop();
  }, []);

  return { status, elapsed, customName, setCustomName, start, stop };
}
