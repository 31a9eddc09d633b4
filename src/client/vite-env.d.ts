/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_API_BASE?: string;
  readonly VITE_FILES_BASE?: string;
  readonly VITE_DOWNLOAD_BASE?: string;
  readonly VITE_CLIENT_ID?: string;
  readonly VITE_SP_TEST_USER?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}

declare module 'virtual:kind-schemas' {
  /** Every <kind>.schema.json of the schemas folder, parsed, keyed by kind name. */
  const schemas: Record<string, unknown>;
  export default schemas;
}
