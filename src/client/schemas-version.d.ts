/** The version of the schema files the app was built with: a define of scripts/lib/vite-kind-schemas.ts. */
declare const __SCHEMAS_VERSION__: string;
/** Each kind's list route and its API path ({"/data/issue": "/vtp/issueRecord"}): a define of scripts/lib/vite-kind-schemas.ts. */
declare const __RECORD_APIS__: Record<string, string>;
