import { compile } from 'json-schema-to-typescript';
import { loadRegistry } from '../../src/server/schemas.js';
import { rootSchema } from '../../src/shared/meta-schema.js';

const BANNER = `/* GENERATED - do not edit. Made from schemas/{file} by \`npm run gen:types\`. */`;
const STYLE = { singleQuote: true, printWidth: 120 };

function typeName(kind: string): string {
  return `${kind[0]?.toUpperCase() ?? ''}${kind.slice(1)}Record`;
}

/**
 * Generates one TypeScript file per kind from its schema file, plus an index that maps kind
 * names to record types, and the types of a schema file itself from the meta-schema.
 * Returns file name -> content, so a test can compare without writing.
 */
export async function generateTypes(schemasDir: string): Promise<Map<string, string>> {
  const registry = loadRegistry(schemasDir);
  const files = new Map<string, string>();
  const index: string[] = [BANNER.replace('schemas/{file}', 'schemas/*.schema.json')];
  for (const kind of registry.values()) {
    const schema = structuredClone(kind.schema) as unknown as Record<string, unknown>;
    schema['title'] = typeName(kind.name);
    delete schema['$id'];
    // Property titles would become one named type alias each; keep them as doc comments instead.
    const properties = schema['properties'] as Record<string, Record<string, unknown>>;
    for (const prop of Object.values(properties)) {
      prop['description'] = [prop['title'], prop['readOnly'] === true ? '(read-only)' : ''].filter(Boolean).join(' ');
      delete prop['title'];
    }
    const ts = await compile(schema as never, typeName(kind.name), {
      bannerComment: BANNER.replace('{file}', `${kind.name}.schema.json`),
      additionalProperties: false,
      declareExternallyReferenced: true,
      unreachableDefinitions: false,
      format: true,
      style: STYLE,
    });
    files.set(`${kind.name}.d.ts`, ts);
    index.push(`import type { ${typeName(kind.name)} } from './${kind.name}.js';`);
  }
  index.push('', `export type { ${[...registry.keys()].map(typeName).join(', ')} };`, '');
  index.push('/** The record type of each kind, keyed by kind name. */');
  index.push('export interface KindRecords {');
  for (const name of registry.keys()) index.push(`  ${name}: ${typeName(name)};`);
  index.push('}', '');
  files.set('index.d.ts', index.join('\n'));
  // Open objects (a property's keywords) keep an index signature; minItems makes no tuples, which code could not build.
  const kindSchema = await compile(structuredClone(rootSchema) as never, 'KindSchema', {
    bannerComment: BANNER.replace('schemas/{file}', 'src/shared/meta-schema.ts'),
    additionalProperties: true,
    ignoreMinAndMaxItems: true,
    format: true,
    style: STYLE,
  });
  files.set('kind-schema.d.ts', kindSchema);
  return files;
}
