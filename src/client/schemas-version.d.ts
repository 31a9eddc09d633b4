/** The version of the schema files the app was built with: a define of scripts/lib/vite-kind-schemas.ts. */
declare const __SCHEMAS_VERSION__: string;
