import { useRef } from 'react';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { useTranslation } from 'react-i18next';
import type { Recorder } from './use-recorder';

const clock = (seconds: number): string => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

/** Edit mode only: the file picker (any type, several at once) and the voice recorder. */
export function UploadControls({ onFiles, recorder }: { onFiles: (files: File[]) => void; recorder: Recorder }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const recording = recorder.status === 'recording';
  return (
    <div className="attachment-tools">
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label={t('files.chooseFiles')}
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          // Cleared, so that choosing the same file again (after removing it) still fires.
          e.currentTarget.value = '';
          if (files.length > 0) onFiles(files);
        }}
      />
      <Button label={t('files.uploadFiles')} icon="pi pi-upload" className="attachment-upload" onClick={() => input.current?.click()} />
      <div className="attachment-recorder">
        <InputText
          value={recorder.customName}
          onChange={(e) => recorder.setCustomName(e.target.value)}
          placeholder={t('files.recordingNamePlaceholder')}
          aria-label={t('files.recordingName')}
          disabled={recording}
          className="attachment-recorder-name"
        />
        {recording ? (
          <Button
            label={t('files.stop', { time: clock(recorder.elapsed) })}
            icon="pi pi-stop-circle"
            severity="danger"
            className="attachment-record recording"
            onClick={recorder.stop}
            // The name holds the visible text ('Stop 0:05'), as WCAG's label in name asks.
            aria-label={t('files.stopRecording', { time: clock(recorder.elapsed) })}
          />
        ) : (
          <Button
            label={t('files.record')}
            icon={recorder.status === 'starting' ? 'pi pi-spin pi-spinner' : 'pi pi-microphone'}
            outlined
            className="attachment-record"
            onClick={() => void recorder.start()}
            disabled={recorder.status === 'starting'}
            aria-label={t('files.recordAudio')}
          />
        )}
      </div>
    </div>
  );
}
