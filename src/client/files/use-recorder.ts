import { useCallback, useEffect, useRef, useState } from 'react';
import { t } from '../i18n';
import { useToast } from '../ui/toast';
import { customRecordingName, defaultRecordingName, pickRecordingType, recordingExtension } from './recording-name';

export type RecorderStatus = 'idle' | 'starting' | 'recording';

export interface Recorder {
  status: RecorderStatus;
  /** Whole seconds since recording started. */
  elapsed: number;
  customName: string;
  setCustomName: (name: string) => void;
  start: () => Promise<void>;
  stop: () => void;
}

/** Why the microphone could not be opened, in the words of docs/PRODUCT.md section 5. */
export function startErrorMessage(error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'NotAllowedError') return t('files.micDenied');
  if (name === 'NotFoundError') return t('files.micNotFound');
  return t('files.micFailed');
}

const stopTracks = (stream: MediaStream): void => stream.getTracks().forEach((t) => t.stop());

/**
 * In-browser voice notes: idle -> recording -> stop, then the recording is handed over as a File
 * (to the upload queue). The microphone is released as soon as recording ends, so the phone's
 * recording indicator goes away.
 */
export function useRecorder(onRecorded: (file: File) => void): Recorder {
  const toast = useToast();
  const [status, setStatus] = useState<RecorderStatus>('idle');
  const [customName, setCustomName] = useState('');
  const [startedAt, setStartedAt] = useState(0);
  const [elapsed, setElapsed] = useState(0);
  const recorder = useRef<MediaRecorder | null>(null);
  // Read when the recording stops, which may be long after the render that started it.
  const latest = useRef({ customName, onRecorded });
  useEffect(() => {
    latest.current = { customName, onRecorded };
  });

  useEffect(() => {
    if (status !== 'recording') return;
    const timer = setInterval(() => setElapsed(Math.floor((Date.now() - startedAt) / 1000)), 500);
    return () => clearInterval(timer);
  }, [status, startedAt]);

  // Leaving the screen mid-recording releases the microphone.
  useEffect(() => () => recorder.current?.stream.getTracks().forEach((t) => t.stop()), []);

  const fileName = useCallback(
    (type: string): string => {
      const ext = recordingExtension(type);
      const custom = latest.current.customName.trim();
      if (custom === '') return defaultRecordingName(ext);
      try {
        return customRecordingName(custom, ext);
      } catch {
        toast('warn', t('files.nameFallback'));
        return defaultRecordingName(ext);
      }
    },
    [toast],
  );

  const finish = useCallback(
    (chunks: Blob[], type: string) => {
      const name = fileName(type);
      if (typeof File !== 'function') {
        toast('error', t('files.noFileConstructor'));
        return;
      }
      setCustomName('');
      latest.current.onRecorded(new File(chunks, name, { type }));
    },
    [fileName, toast],
  );

  const start = useCallback(async () => {
    if (status !== 'idle') return;
    setStatus('starting');
    let stream: MediaStream;
    try {
      if (!navigator.mediaDevices?.getUserMedia) throw new Error('This browser cannot record audio');
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (e) {
      toast('error', startErrorMessage(e));
      setStatus('idle');
      return;
    }
    try {
      const preferred = pickRecordingType();
      const rec = new MediaRecorder(stream, preferred ? { mimeType: preferred } : undefined);
      const chunks: Blob[] = [];
      let failed = false;
      rec.ondataavailable = (e: BlobEvent) => {
        if (e.data.size > 0) chunks.push(e.data);
      };
      rec.onerror = () => {
        failed = true;
        toast('error', t('files.recordingError'));
        stopTracks(stream);
        recorder.current = null;
        setStatus('idle');
      };
      rec.onstop = () => {
        stopTracks(stream);
        recorder.current = null;
        setStatus('idle');
        // The container type without codecs, as a file's type (audio/webm, audio/ogg, audio/mp4).
        if (!failed) finish(chunks, (rec.mimeType || preferred || 'audio/webm').split(';')[0] as string);
      };
      // Slices every second, so a long recording never sits in one huge buffer.
      rec.start(1000);
      recorder.current = rec;
      setStartedAt(Date.now());
      setElapsed(0);
      setStatus('recording');
      toast('info', t('files.recordingStarted'));
    } catch {
      stopTracks(stream);
      toast('error', t('files.micFailed'));
      setStatus('idle');
    }
  }, [status, toast, finish]);

  const stop = useCallback(() => {
    const rec = recorder.current;
    if (rec && rec.state !== 'inactive') rec.stop();
  }, []);

  return { status, elapsed, customName, setCustomName, start, stop };
}
