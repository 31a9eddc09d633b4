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
