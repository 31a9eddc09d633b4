/** One file or folder of a project's tree, as the listing and the upload answers show it. */
export interface FileEntry {
  id: string;
  name: string;
  isFolder: boolean;
  mimeType: string;
  size: number;
  /** ISO-8601 UTC. */
  modified: string;
  /** Project-relative, '/'-separated, no leading slash. */
  path: string;
}
