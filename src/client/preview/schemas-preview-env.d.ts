// The module of the preview's Vite plugin (scripts/lib/schemas-preview.ts).
declare module 'virtual:schemas-preview' {
  /** One problem of the schemas folder: the file it is in (name and full path) and what is wrong. */
  export interface PreviewProblem {
    file: string;
    path: string;
    message: string;
  }
  /** The folder previewed, its schema files and the problems the server's checks find in them. */
  export interface SchemasPreviewState {
    dir: string;
    files: string[];
    problems: PreviewProblem[];
  }
  const state: SchemasPreviewState;
  export default state;
}
