import type { KindSchema } from './kind-types.js';
import { kindIdentity } from './kinds.js';

// The checks of the kinds together: what they must not share, and what one names in another.

/** The kinds, the likely original of a copied file first (its $id, API path or route names it), so a collision is reported on the copy. */
function byOwnership(schemas: Record<string, KindSchema>): [string, KindSchema][] {
  const score = ([name, s]: [string, KindSchema]): number => {
    const meta = s['x-kind'];
    const namesItself = [meta.apiPath, meta.route].some((p) =>
      p
        .toLowerCase()
        .split(/[/_-]/)
        .some((part) => part === name || part === `${name}record`),
    );
    return (s.$id === `${name}.schema.json` ? 2 : 0) + (namesItself ? 1 : 0);
  };
  return Object.entries(schemas).sort((a, b) => score(b) - score(a));
}

/** The first folder of a kind's attachment folders, which no other kind may share (nor start with a placeholder, which could be any). */
function attachmentsRoot(name: string, meta: KindSchema['x-kind'], problems: string[]): string[] {
  const template = meta.attachments?.folder;
  if (template === undefined) return [];
  const first = template.split('/')[0] ?? '';
  if (!first.includes('{')) return [`attachment folder ${first.toLowerCase()}/`];
  problems.push(
    `${name}.schema.json: x-kind.attachments.folder must start with a folder name of its own, without a placeholder (such as "${name}_records/..."), so that no other kind's attachment folders can be the same`,
  );
  return [];
}

/** A renamed kind keeps its records under its oldest name: no other file may still be a kind of an earlier name, or be renamed from it. */
function identityProblems(schemas: Record<string, KindSchema>): string[] {
  const problems: string[] = [];
  const claimed = new Map<string, string>();
  for (const [name, s] of byOwnership(schemas)) {
    for (const earlier of (s['x-renamedFrom'] ?? []).filter((e) => schemas[e] !== undefined))
      problems.push(
        `${name}.schema.json: x-renamedFrom names '${earlier}', which is still a kind of its own (${earlier}.schema.json); remove that file to rename the kind, or this x-renamedFrom to make a new one`,
      );
    const identity = kindIdentity(name, s);
    const other = claimed.get(identity);
    if (other !== undefined)
      problems.push(`${name}.schema.json: x-renamedFrom names '${identity}', as ${other}.schema.json does; only one kind can keep its records`);
    claimed.set(identity, name);
  }
  return problems;
}

/** Checks that kinds do not collide (paths, routes, stats, packages, folders) and that what one names in another exists; each problem names the file to change. */
export function checkRegistry(schemas: Record<string, KindSchema>): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  const stats = new Set<string>();
  // The server compiles every kind into one validator, where a second schema with the same $id
  // (a file copied to make a new kind) is refused with a stack trace naming neither file.
  const byId = new Map<string, string[]>();
  for (const [name, s] of Object.entries(schemas)) if (s.$id !== undefined) byId.set(s.$id, [...(byId.get(s.$id) ?? []), name]);
  for (const [id, names] of byId) {
    // The file the $id names keeps it; the others (copies) are told to change theirs.
    const owner = names.find((n) => id === `${n}.schema.json`) ?? names[0];
    for (const name of names.filter((n) => n !== owner))
      problems.push(`${name}.schema.json: $id '${id}' is also the $id of ${owner}.schema.json; give each file its own, such as "${name}.schema.json"`);
  }
  problems.push(...identityProblems(schemas));
  for (const [name, s] of byOwnership(schemas)) {
    const meta = s['x-kind'];
    const keys = [`api ${meta.apiPath}`, `route ${meta.route}`, ...attachmentsRoot(name, meta, problems)];
    const statNames = meta.dataPage ? [meta.dataPage.count, ...Object.keys(meta.dataPage.sums ?? {})] : [];
    for (const stat of statNames) stats.add(stat);
    keys.push(...statNames.map((stat) => `stats name ${stat}`), ...(meta.packages ?? []).map((p) => `package route ${p.route}`));
    for (const key of keys) {
      const other = seen.get(key);
      if (other !== undefined) problems.push(`${name}.schema.json: ${key} is ${other === name ? 'used twice' : `also used by ${other}.schema.json`}`);
      seen.set(key, name);
    }
  }
  // The job table keeps one job per record id (analysis_jobs.issue_id, docs/decisions/041): two
  // kinds' records share ids, so only one kind may be analysed until jobs also name their kind.
  const analysed = byOwnership(schemas).flatMap(([name, s]) => (s['x-kind'].analysis !== undefined ? [name] : []));
  for (const name of analysed.slice(1))
    problems.push(
      `${name}.schema.json: x-kind.analysis is also declared by ${analysed[0] ?? ''}.schema.json; only one kind may have the AI analysis for now, because analysis jobs are kept by record id alone (docs/decisions/041)`,
    );
  for (const [name, s] of Object.entries(schemas)) {
    const meta = s['x-kind'];
    const stat = meta.dataPage?.tile.detail?.stat;
    if (stat !== undefined && !stats.has(stat)) problems.push(`${name}.schema.json: x-kind.dataPage.tile.detail.stat '${stat}' is no kind's count or sum`);
    for (const other of meta.workspace?.session?.blockedBy ?? [])
      if (!schemas[other]?.['x-kind'].workspace?.session)
        problems.push(`${name}.schema.json: x-kind.workspace.session.blockedBy names '${other}', which is no kind with a session`);
  }
  return problems;
}
