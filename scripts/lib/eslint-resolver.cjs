// The import resolver ESLint's boundary rules use: TypeScript's own rule for relative imports
// ('./x.js' is x.ts or x.tsx; './x' is x.ts, x.tsx or x/index.ts), Node's for packages. Written
// here because the usual resolver (eslint-import-resolver-typescript) brings native bindings whose
// platform packages npm leaves out of the lockfile, which breaks `npm ci`.
const fs = require('node:fs');
const path = require('node:path');

const isFile = (p) => {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
};

function candidates(base) {
  const stem = base.replace(/\.(c|m)?js$/, '');
  return [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`, `${base}.ts`, `${base}.tsx`, `${base}.json`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')];
}

module.exports = {
  interfaceVersion: 2,
  resolve(source, file) {
    if (source.startsWith('.') || path.isAbsolute(source)) {
      const base = path.resolve(path.dirname(file), source);
      const found = candidates(base).find(isFile);
      return found ? { found: true, path: found } : { found: false };
    }
    try {
      return { found: true, path: require.resolve(source, { paths: [path.dirname(file)] }) };
    } catch {
      // A package without a CommonJS entry, a type-only package or a virtual module: not ours to check.
      return { found: true, path: null };
    }
  },
};
