import type { Kind, KindRegistry, KindSchema } from '../../shared/kind-types';
import { buildRegistry, kindByRoute as kindByRouteIn } from '../../shared/kinds';
// The schema files themselves, bundled into the record screens' chunk (never the entry).
import schemas from 'virtual:kind-schemas';

/** Every record kind, from the schema files (bundled by the build: scripts/lib/vite-kind-schemas.ts), keyed by kind name. */
export const registry: KindRegistry = buildRegistry(schemas as Record<string, KindSchema>);

/** The kind whose list screen is at this route (such as '/data/issue'). */
export const kindByRoute = (route: string): Kind | undefined => kindByRouteIn(registry, route);
